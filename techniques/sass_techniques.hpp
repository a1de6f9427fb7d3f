#pragma once
// Which GPU techniques a CUDA candidate's device code really uses, read from the
// SASS that `cuobjdump -sass -res-usage` prints for its compiled object: pure text parsing,
// so it is tested on text and never runs a tool (bench_node/cuda/sass_dump.hpp runs it).
//
//   smem    shared-memory tiling: an instruction that reads or writes shared memory
//           (LDS, LDSM, STS, STSM, ATOMS) or copies into it (LDGSTS, UTMALDG, UBLKCP)
//   tensor  tensor cores: an MMA instruction (HMMA, IMMA, DMMA, BMMA, HGMMA, IGMMA, QGMMA,
//           BGMMA, OMMA, QMMA, the UTC*MMA family: every opcode whose base ends in "MMA")
//   async   asynchronous copies: LDGSTS (cp.async), UTMALDG/UTMASTG/UTMAREDG (TMA),
//           UBLKCP/UBLKRED (bulk copies). Waits, arrivals and barriers alone (LDGDEPBAR,
//           DEPBAR, ARRIVES, SYNCS) and prefetches (UTMAPF, UBLKPF) move no data: not counted.
//   wgmma   Hopper's warpgroup MMA (wgmma.mma_async): an MMA opcode whose base ends in "GMMA"
//           (HGMMA, IGMMA, QGMMA, BGMMA); also counted as tensor
//   tma     the Tensor Memory Accelerator's copies (cp.async.bulk[.tensor], with or without a
//           tensor map): UTMALDG, UTMASTG, UTMAREDG, UBLKCP, UBLKRED; also counted as async
//
// Only opcodes of instruction lines count ("/*0a40*/  @P0 LDS.U.128 R4, [R2] ;  /* 0x... */"
// inside a "Function :" block of an ELF section), never kernel names, headers or anything
// else. An instruction predicated on @!PT (never executes: the compiler's padding) does not
// count. With an `arch`, only the cubins built for it count (what the rank's GPU runs).
#include <string>
#include <string_view>
#include <vector>

#include "common/technique_summary.hpp"

namespace hpcreward::techniques {

// The first use of one technique, and how many instructions use it.
struct SassUse {
  int count = 0;
  std::string function;     // the kernel (as cuobjdump names it, mangled)
  std::string instruction;  // "LDS.U.128 R4, [R2]"
};

struct SassFunction {
  std::string name;
  int instructions = 0;
  int static_shared_bytes = -1;  // SHARED from -res-usage; -1 when not reported
};

struct SassTechniques {
  bool parsed = false;  // false: not a usable dump (see error); nothing else is meaningful
  std::string error;
  int cubins = 0;  // ELF sections counted (for `arch`, when one was given)
  std::vector<SassFunction> functions;
  SassUse smem, tensor, async, wgmma, tma;
};

// Parses what `cuobjdump -sass -res-usage` printed. `arch` ("sm_90a"), when not empty,
// selects the cubins that count; a dump without any cubin for it is an error, as is a
// kernel listed in the resource usage without code, or a kernel block without instructions
// (what a dump looks like when cuobjdump could not run nvdisasm).
SassTechniques parse_sass(std::string_view dump, std::string_view arch = {});

// The subset of {"smem", "tensor", "async", "wgmma", "tma"} used, in that order.
std::vector<std::string> sass_technique_names(const SassTechniques &found);

// "smem: 12 instructions, first LDS.U.128 R4, [R2] in _Z5tiledPKdS0_Pd (static shared
// 8192 bytes); tensor: none; async: none; wgmma: none; tma: none".
std::string sass_evidence(const SassTechniques &found);

// What a GPU rank reports for a CUDA candidate whose dump parsed (found.parsed), as the
// Measurement's summary: the names above and the evidence; loop_order and tile_sizes stay
// empty for CUDA.
TechniqueSummary summarise(const SassTechniques &found);

// The classification of one opcode ("LDGSTS.E.BYPASS.128"), exposed for tests.
bool shared_memory_opcode(std::string_view opcode);
bool tensor_opcode(std::string_view opcode);
bool async_copy_opcode(std::string_view opcode);
bool warpgroup_mma_opcode(std::string_view opcode);
bool tensor_memory_copy_opcode(std::string_view opcode);

}  // namespace hpcreward::techniques
