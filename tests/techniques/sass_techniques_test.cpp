// The SASS parser on text shaped like cuobjdump 13's `-sass -res-usage` output (the lines
// below are taken from real dumps of sm_90a builds, trimmed).
#include "techniques/sass_techniques.hpp"

#include <gtest/gtest.h>

namespace hpcreward::techniques {
namespace {

std::string header(const std::string &arch) {
  return "\nFatbin elf code:\n================\narch = " + arch +
         "\ncode version = [1,8]\nhost = linux\ncompile_size = 64bit\n\n";
}

std::string resources(const std::string &name, int shared) {
  return " Function " + name + ":\n  REG:12 STACK:0 SHARED:" + std::to_string(shared) +
         " LOCAL:0 CONSTANT[0]:544 TEXTURE:0 SURFACE:0 SAMPLER:0\n";
}

std::string code_for(const std::string &arch) {
  return "\n\tcode for " + arch + "\n\t.target\t" + arch + "\n\n";
}

std::string function(const std::string &name, const std::vector<std::string> &instructions) {
  std::string text = "\t\tFunction : " + name +
                     "\n\t.headerflags\t@\"EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n";
  int address = 0;
  for (const std::string &instruction : instructions) {
    char prefix[64];
    std::snprintf(prefix, sizeof prefix, "        /*%04x*/                   ", address);
    text += prefix + instruction + "                       /* 0x00000a00ff017b82 */\n";
    text += "                                                              /* 0x000fe20000000800 */\n";
    address += 0x10;
  }
  return text + "\t\t..........\n\n";
}

// An empty cubin (nvcc always emits one) and one with a cp.async + HMMA kernel and a
// shared-memory kernel.
std::string realistic_dump() {
  return header("sm_90a") + "Resource usage:\n Common:\n  GLOBAL:0\n" + code_for("sm_90a") +
         header("sm_90a") + "Resource usage:\n Common:\n  GLOBAL:64\n" +
         resources("_Z2cpPKfPf", 2048) + resources("_Z2wmPK6__halfS1_PS_i", 0) + code_for("sm_90a") +
         function("_Z2cpPKfPf", {"LDC R1, c[0x0][0x28] ;", "@!PT LDS RZ, [RZ] ;",
                                 "LDGSTS.E [R3], desc[UR6][R4.64] ;", "LDGDEPBAR ;",
                                 "DEPBAR.LE SB0, 0x0 ;", "LDS R3, [R3] ;", "EXIT ;"}) +
         function("_Z2wmPK6__halfS1_PS_i", {"LDG.E R4, desc[UR6][R2.64] ;",
                                            "HMMA.16816.F32 R8, R4.reuse, R18, RZ ;",
                                            "STG.E desc[UR6][R2.64], R8 ;", "EXIT ;"});
}

TEST(SassTechniques, FindsEachTechniqueWithItsFirstInstruction) {
  const SassTechniques found = parse_sass(realistic_dump(), "sm_90a");
  ASSERT_TRUE(found.parsed) << found.error;
  EXPECT_EQ(found.cubins, 2);
  ASSERT_EQ(found.functions.size(), 2u);
  EXPECT_EQ(sass_technique_names(found), (std::vector<std::string>{"smem", "tensor", "async"}));
  // @!PT LDS never executes: the first shared-memory instruction is the cp.async.
  EXPECT_EQ(found.smem.count, 2);
  EXPECT_EQ(found.smem.instruction, "LDGSTS.E [R3], desc[UR6][R4.64]");
  EXPECT_EQ(found.smem.function, "_Z2cpPKfPf");
  EXPECT_EQ(found.tensor.count, 1);
  EXPECT_EQ(found.tensor.instruction, "HMMA.16816.F32 R8, R4.reuse, R18, RZ");
  EXPECT_EQ(found.tensor.function, "_Z2wmPK6__halfS1_PS_i");
  EXPECT_EQ(found.async.count, 1);  // LDGDEPBAR and DEPBAR wait; they copy nothing
  const std::string evidence = sass_evidence(found);
  EXPECT_NE(evidence.find("smem: 2 instructions, first LDGSTS.E [R3], desc[UR6][R4.64] in _Z2cpPKfPf "
                          "(static shared 2048 bytes)"),
            std::string::npos)
      << evidence;
  EXPECT_NE(evidence.find("2 kernels in 2 cubins"), std::string::npos) << evidence;
}

TEST(SassTechniques, SummaryIsWhatTheRankReports) {
  const SassTechniques found = parse_sass(realistic_dump(), "sm_90a");
  const TechniqueSummary summary = summarise(found);
  EXPECT_TRUE(summary.detected);
  EXPECT_EQ(summary.techniques, sass_technique_names(found));
  EXPECT_EQ(summary.evidence, sass_evidence(found));
  EXPECT_EQ(summary.loop_order, "");
  EXPECT_TRUE(summary.tile_sizes.empty());
}

TEST(SassTechniques, NamesHeadersAndCommentsNeverCount) {
  const std::string name = "HMMA_LDGSTS_LDS_UTMALDG_kernel";
  std::string dump = header("sm_90a") + "Resource usage:\n" + resources(name, 0) + code_for("sm_90a") +
                     function(name, {"LDG.E R2, desc[UR4][R2.64] ;", "STG.E desc[UR4][R4.64], R2 ;",
                                     "EXIT ;"});
  dump += "\t\tFunction : HMMA.16816.F32\n";  // a name line is not an instruction line
  dump += "        /*0000*/                   EXIT ;   /* 0x000000000000794d */\n";
  dump += "// /*0010*/ HMMA.16816.F32 R8, R4, R18, RZ ;\n";  // not an instruction line
  dump += "                                      /* 0x000fe20000000800 HMMA */\n";
  const SassTechniques found = parse_sass(dump, "sm_90a");
  ASSERT_TRUE(found.parsed) << found.error;
  EXPECT_TRUE(sass_technique_names(found).empty()) << sass_evidence(found);
}

TEST(SassTechniques, OnlyTheRanksArchitectureCounts) {
  const std::string dump = header("sm_80") + code_for("sm_80") +
                           function("k", {"HMMA.16816.F32 R8, R4, R18, RZ ;", "EXIT ;"}) +
                           header("sm_90a") + code_for("sm_90a") + function("k", {"EXIT ;"});
  const SassTechniques hopper = parse_sass(dump, "sm_90a");
  ASSERT_TRUE(hopper.parsed) << hopper.error;
  EXPECT_TRUE(sass_technique_names(hopper).empty());
  EXPECT_EQ(hopper.cubins, 1);
  const SassTechniques any = parse_sass(dump);
  ASSERT_TRUE(any.parsed) << any.error;
  EXPECT_EQ(sass_technique_names(any), std::vector<std::string>{"tensor"});
  const SassTechniques blackwell = parse_sass(dump, "sm_100a");
  EXPECT_FALSE(blackwell.parsed);
  EXPECT_NE(blackwell.error.find("no device code for sm_100a"), std::string::npos) << blackwell.error;
}

TEST(SassTechniques, ADumpWithoutCodeIsAnError) {
  // What cuobjdump prints when it can't run nvdisasm: headers, no code.
  const std::string no_disassembler = header("sm_90a") + "Resource usage:\n" +
                                      resources("_Z1kPd", 0) + code_for("sm_90a");
  const SassTechniques found = parse_sass(no_disassembler, "sm_90a");
  EXPECT_FALSE(found.parsed);
  EXPECT_NE(found.error.find("listed without code"), std::string::npos) << found.error;
  EXPECT_TRUE(sass_technique_names(found).empty());

  const std::string empty_function = header("sm_90a") + code_for("sm_90a") + "\t\tFunction : k\n";
  EXPECT_FALSE(parse_sass(empty_function, "sm_90a").parsed);
  EXPECT_FALSE(parse_sass("", "sm_90a").parsed);
  EXPECT_FALSE(parse_sass("cuobjdump info    : File 'x' does not contain device code\n").parsed);
  // An ELF section without an arch line.
  EXPECT_FALSE(parse_sass("Fatbin elf code:\n" + code_for("sm_90a") + function("k", {"EXIT ;"})).parsed);
}

TEST(SassTechniques, PtxSectionsAreNotRead) {
  const std::string dump = header("sm_90a") + code_for("sm_90a") + function("k", {"EXIT ;"}) +
                           "\nFatbin ptx code:\n================\narch = sm_90a\n" +
                           "        /*0000*/   HMMA.16816.F32 R8, R4, R18, RZ ;   /* 0x0 */\n";
  const SassTechniques found = parse_sass(dump, "sm_90a");
  ASSERT_TRUE(found.parsed) << found.error;
  EXPECT_TRUE(sass_technique_names(found).empty());
}

TEST(SassTechniques, PredicatesAndDualIssueBraces) {
  const std::string dump = header("sm_90a") + code_for("sm_90a") +
                           function("k", {"@P0 STS.128 [R2], R4 ;", "{ @!P1 HMMA.1688.F32 R0, R4, R6, R0 ; }",
                                          "@!PT LDGSTS.E [R3], desc[UR6][R4.64] ;", "EXIT ;"});
  const SassTechniques found = parse_sass(dump, "sm_90a");
  ASSERT_TRUE(found.parsed) << found.error;
  EXPECT_EQ(sass_technique_names(found), (std::vector<std::string>{"smem", "tensor"}));
  EXPECT_EQ(found.smem.instruction, "STS.128 [R2], R4");
}

TEST(SassTechniques, WarpgroupShapesInOpcodes) {
  // Real sm_90a lines: the shape modifier is lower-case.
  const std::string dump = header("sm_90a") + code_for("sm_90a") +
                           function("k", {"SYNCS.EXCH.64 URZ, [UR7], UR4 ;", "UBLKCP.S.G [UR6], [UR4], UR8 ;",
                                          "HGMMA.64x8x16.F32 R24, gdesc[UR4], RZ, !UPT, gsb0 ;", "EXIT ;"});
  const SassTechniques found = parse_sass(dump, "sm_90a");
  ASSERT_TRUE(found.parsed) << found.error;
  EXPECT_EQ(sass_technique_names(found),
            (std::vector<std::string>{"smem", "tensor", "async", "wgmma", "tma"}));
  EXPECT_EQ(found.tensor.instruction, "HGMMA.64x8x16.F32 R24, gdesc[UR4], RZ, !UPT, gsb0");
  EXPECT_EQ(found.wgmma.instruction, found.tensor.instruction);
  EXPECT_EQ(found.tma.instruction, "UBLKCP.S.G [UR6], [UR4], UR8");
}

TEST(SassTechniques, MmaSyncAndCpAsyncAreNotHoppersOwn) {
  const SassTechniques found = parse_sass(realistic_dump(), "sm_90a");
  ASSERT_TRUE(found.parsed) << found.error;
  EXPECT_EQ(found.wgmma.count, 0);
  EXPECT_EQ(found.tma.count, 0);
}

TEST(SassTechniques, OpcodeClasses) {
  for (const char *opcode : {"LDS", "LDS.U.128", "LDSM.16.M88.4", "STS.128", "STSM.16.M88.4",
                             "ATOMS.ADD", "LDGSTS.E.BYPASS.LTC128B.128", "UTMALDG.2D", "UBLKCP.S.G"})
    EXPECT_TRUE(shared_memory_opcode(opcode)) << opcode;
  for (const char *opcode : {"LDG.E.128", "STG.E", "LDL", "STL.64", "LD.E", "LDSMX", "ULDC"})
    EXPECT_FALSE(shared_memory_opcode(opcode)) << opcode;
  for (const char *opcode : {"HMMA.16816.F32", "DMMA.8x8x4", "IMMA.16832.S8.S8", "BMMA.88128.AND.POPC",
                             "HGMMA.64x128x16.F32", "QGMMA.64x64x32.F32.E4M3.E4M3", "IGMMA.64x64x32.S8.S8",
                             "UTCHMMA", "UTCQMMA.2CTA", "OMMA.SF"})
    EXPECT_TRUE(tensor_opcode(opcode)) << opcode;
  for (const char *opcode : {"FFMA", "DFMA", "WARPGROUP.ARRIVE", "HFMA2.MMA", "MMA"})
    EXPECT_FALSE(tensor_opcode(opcode)) << opcode;
  for (const char *opcode : {"LDGSTS.E.BYPASS.128", "UTMALDG.2D", "UTMASTG.2D", "UTMAREDG.2D.ADD",
                             "UBLKCP.S.G", "UBLKRED.G.S.ADD"})
    EXPECT_TRUE(async_copy_opcode(opcode)) << opcode;
  for (const char *opcode : {"LDGDEPBAR", "DEPBAR.LE", "ARRIVES.LDGSTSBAR.64", "SYNCS.EXCH.64",
                             "SYNCS.ARRIVE.TRANS64.RED.A1T0", "UTMAPF.L2.2D", "UBLKPF.L2", "LDG.E"})
    EXPECT_FALSE(async_copy_opcode(opcode)) << opcode;
  for (const char *opcode : {"HGMMA.64x128x16.F32", "QGMMA.64x64x32.F32.E4M3.E4M3", "IGMMA.64x64x32.S8.S8",
                             "BGMMA.64x64x256.AND.POPC"})
    EXPECT_TRUE(warpgroup_mma_opcode(opcode)) << opcode;
  for (const char *opcode : {"HMMA.16816.F32", "UTCHMMA", "WARPGROUP.ARRIVE", "GMMA"})
    EXPECT_FALSE(warpgroup_mma_opcode(opcode)) << opcode;
  for (const char *opcode : {"UTMALDG.2D", "UTMALDG.3D.MULTICAST", "UTMASTG.2D", "UTMAREDG.2D.ADD", "UBLKCP.S.G",
                             "UBLKRED.G.S.ADD"})
    EXPECT_TRUE(tensor_memory_copy_opcode(opcode)) << opcode;
  for (const char *opcode : {"LDGSTS.E.BYPASS.128", "UTMAPF.L2.2D", "UBLKPF.L2", "UTMACCTL.IV", "SYNCS.EXCH.64"})
    EXPECT_FALSE(tensor_memory_copy_opcode(opcode)) << opcode;
}

TEST(SassTechniques, NoTechniquesIsDetectedAndPlain) {
  const SassTechniques found =
      parse_sass(header("sm_90a") + code_for("sm_90a") + function("k", {"DFMA R18, R20, R10, R18 ;", "EXIT ;"}),
                 "sm_90a");
  ASSERT_TRUE(found.parsed) << found.error;
  EXPECT_TRUE(sass_technique_names(found).empty());
  EXPECT_EQ(sass_evidence(found), "smem: none; tensor: none; async: none; wgmma: none; tma: none (1 kernel in 1 cubin)");
}

}  // namespace
}  // namespace hpcreward::techniques
