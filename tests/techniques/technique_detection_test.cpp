// Both halves together, on objects compiled by gcc (read, never loaded), and the summary a
// rank reports from them.
#include "techniques/technique_detection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "techniques/simd_clones.hpp"
#include "tests/techniques/candidates.hpp"
#include "tests/techniques/compile_support.hpp"

namespace hpcreward::techniques {
namespace {

using namespace testing;

// Source and object of one candidate under one stage's flags; nullopt when gcc refuses.
std::optional<TechniqueDescriptor> detect(const TempDir &dir, const std::string &name,
                                          const std::string &source,
                                          const std::vector<std::string> &flags) {
  const auto object = compile(dir, name, source, flags);
  if (!object) return std::nullopt;
  const bool avx512_flags = std::find(flags.begin(), flags.end(), "-mavx512f") != flags.end();
  return combine(detect_in_source(source, flags), detect_in_object(*object),
                 avx512_flags ? VectorIsa::avx512 : VectorIsa::sse2);
}

bool uses(const TechniqueDescriptor &descriptor, const std::string &name) {
  for (const std::string &used : technique_names(descriptor))
    if (used == name) return true;
  return false;
}

class Detection : public ::testing::Test {
 protected:
  TempDir dir;
};

TEST_F(Detection, Openmp) {
  const std::vector<std::string> flags = {"-O3", "-fopenmp"};
  auto used = detect(dir, "omp", kOpenmp, flags);
  ASSERT_TRUE(used);
  EXPECT_TRUE(used->openmp) << used->evidence;
  EXPECT_EQ(technique_names(*used), std::vector<std::string>{"openmp"});
  auto unused = detect(dir, "plain", kPlainIkj, flags);
  ASSERT_TRUE(unused);
  EXPECT_FALSE(unused->openmp) << unused->evidence;
  auto mentioned = detect(dir, "mention", kMentionsOnly, flags);
  ASSERT_TRUE(mentioned);
  EXPECT_TRUE(technique_names(*mentioned).empty()) << mentioned->evidence;
  // The pragma compiled without -fopenmp: neither the tree nor the object shows OpenMP.
  auto compiled_away = detect(dir, "away", kOpenmp, {"-O3"});
  ASSERT_TRUE(compiled_away);
  EXPECT_FALSE(compiled_away->openmp) << compiled_away->evidence;
}

TEST_F(Detection, Avx512) {
  const std::vector<std::string> flags = {"-O3", "-mavx512f"};
  auto used = detect(dir, "avx", kAvx512, flags);
  ASSERT_TRUE(used);
  EXPECT_TRUE(used->avx512) << used->evidence;
  EXPECT_NE(used->evidence.find("zmm"), std::string::npos);
  auto unused = detect(dir, "plain", kPlainIkj, flags);
  ASSERT_TRUE(unused);
  EXPECT_FALSE(unused->avx512) << unused->evidence;
  auto mentioned = detect(dir, "mention", kMentionsOnly, flags);
  ASSERT_TRUE(mentioned);
  EXPECT_FALSE(mentioned->avx512) << mentioned->evidence;
}

TEST_F(Detection, Avx512WithoutTargetFlagsIsSkippedNotCrashed) {
  // gcc refuses the intrinsics without -mavx512f: the stage reports a compile error, and
  // the source side alone still parses.
  auto refused = detect(dir, "noflags", kAvx512, {"-O3"});
  if (refused) {
    EXPECT_FALSE(refused->avx512) << refused->evidence;
  }
  EXPECT_GT(detect_in_source(kAvx512, {"-O3"}).avx512_uses, 0);
}

// AVX-512 FMAs hidden in 64-bit constants (62 f2 f5 48 b8 c2: vfmadd231pd zmm0, zmm1, zmm2, and
// ... da: the same into zmm3; then eb 02: a jump over the next movabs's opcode bytes), for a
// candidate that jumps into them after taking over its own return address. The sweep sees only
// movabs; no source names AVX-512.
constexpr const char *kHiddenFmas = R"(
unsigned long long hidden_a(void) { return 0x02EBC2B848F5F262ULL; }
unsigned long long hidden_b(void) { return 0x02EBDAB848F5F262ULL; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s + (double)(hidden_a() == hidden_b());
    }
}
)";

TEST_F(Detection, ZmmInstructionsHiddenInConstantsCountAsAvx512) {
  auto hidden = detect(dir, "hidden", kHiddenFmas, {"-O3", "-fno-inline"});
  ASSERT_TRUE(hidden);
  EXPECT_TRUE(hidden->avx512) << hidden->evidence;
  EXPECT_NE(hidden->evidence.find("hidden inside other instructions' bytes"), std::string::npos) << hidden->evidence;
  EXPECT_NE(hidden->evidence.find("2 zmm instructions hidden"), std::string::npos) << hidden->evidence;
  EXPECT_NE(hidden->evidence.find("vfmadd231pd"), std::string::npos) << hidden->evidence;
}

TEST_F(Detection, PlainCodeHidesNoZmmInstructions) {
  // Honest kernels at the flags of the stages without AVX-512: nothing decodes as hidden zmm
  // arithmetic.
  // (Objects with zmm code of their own are not asked: decodes inside it are common and ignored.)
  for (const std::vector<std::string> &flags : {std::vector<std::string>{"-O0"}, {"-O3"}, {"-O3", "-fopenmp"}})
    for (const char *source : {kPlainIkj, kOpenmp, kBlocked3, kGotoBlas, kMacroIndexed}) {
      const auto object = compile(dir, "plain", source, flags);
      ASSERT_TRUE(object);
      const ObjectTechniques found = detect_in_object(*object);
      EXPECT_EQ(found.hidden_zmm_instructions, 0)
          << flags.back() << ": 0x" << std::hex << found.first_hidden_zmm_address << " "
          << found.first_hidden_zmm_instruction << "\n" << source;
    }

}

// A public simd helper: gcc exports its variants for SSE2, AVX, AVX2 and AVX-512 at any flags.
constexpr const char *kSimdHelper = R"(
__attribute__((simd)) double twice(double x) { return 2.0 * x; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = twice(s) * 0.5;
    }
}
)";

std::string bytes_of(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST_F(Detection, SimdClonesBeyondTheFlagsCountAsTheirIsa) {
  // Read as gcc made it: the AVX-512 clone is zmm code no source shows, in a stage without it.
  auto clone = detect(dir, "clone", kSimdHelper, {"-O3"});
  ASSERT_TRUE(clone);
  EXPECT_TRUE(clone->avx512) << clone->evidence;
  EXPECT_NE(clone->evidence.find("beyond the flags' SSE2"), std::string::npos) << clone->evidence;
  const auto object = compile(dir, "clone", kSimdHelper, {"-O3"});
  ASSERT_TRUE(object);
  const ObjectTechniques found = detect_in_object(*object);
  EXPECT_GT(found.vex_instructions, 0) << "the AVX and AVX2 clones";
  EXPECT_TRUE(code_beyond_flags(found, VectorIsa::sse2)) << "AVX code in a stage compiled for SSE2";
  EXPECT_FALSE(code_beyond_flags(found, VectorIsa::avx512));
  EXPECT_FALSE(combine(detect_in_source(kSimdHelper, {"-mavx512f"}), found, VectorIsa::avx512).avx512)
      << "where the flags target AVX-512 the clone is gcc's own code";
}

TEST_F(Detection, SimdClonesBeyondTheFlagsAreMadeUnreachable) {
  const auto object = compile(dir, "clone", kSimdHelper, {"-O3"});
  ASSERT_TRUE(object);
  const std::string before = bytes_of(*object);
  const DisabledClones disabled = disable_simd_clones_beyond(*object, VectorIsa::sse2);
  ASSERT_TRUE(disabled.done) << disabled.error;
  EXPECT_EQ(disabled.names.size(), 6u) << "c, d and e, masked and not";
  for (const std::string &name : disabled.names) EXPECT_NE(name.rfind("_ZGVb", 0), 0u) << name;
  const std::string after = bytes_of(*object);
  ASSERT_EQ(before.size(), after.size());
  EXPECT_NE(before, after);
  const ObjectTechniques found = detect_in_object(*object);
  EXPECT_EQ(found.avx512_instructions, 0) << found.first_avx512_instruction;
  EXPECT_EQ(found.vex_instructions, 0) << found.first_vex_instruction;
  EXPECT_EQ(found.hidden_zmm_instructions, 0);
  EXPECT_FALSE(code_beyond_flags(found, VectorIsa::sse2));
  EXPECT_FALSE(combine(detect_in_source(kSimdHelper, {"-O3"}), found, VectorIsa::sse2).avx512);
  // The stage's own (SSE2) variant and every other function are left as they were.
  const DisabledClones again = disable_simd_clones_beyond(*object, VectorIsa::sse2);
  EXPECT_EQ(bytes_of(*object), after);
  ASSERT_TRUE(again.done);
  // Under AVX-512 flags nothing is beyond them.
  const auto wide = compile(dir, "wide", kSimdHelper, {"-O3", "-mavx512f"});
  ASSERT_TRUE(wide);
  const std::string wide_before = bytes_of(*wide);
  EXPECT_TRUE(disable_simd_clones_beyond(*wide, VectorIsa::avx512).names.empty());
  EXPECT_EQ(bytes_of(*wide), wide_before);
}

TEST_F(Detection, HiddenZmmBesideAnUnusedSimdHelperCountsAsAvx512) {
  const std::string source = std::string(kHiddenFmas) + "__attribute__((simd)) double unused(double x) { return x + 1; }\n";
  const auto object = compile(dir, "beside", source, {"-O3", "-fno-inline"});
  ASSERT_TRUE(object);
  ASSERT_TRUE(disable_simd_clones_beyond(*object, VectorIsa::sse2).done);
  const TechniqueDescriptor found = combine(detect_in_source(source, {"-O3"}), detect_in_object(*object), VectorIsa::sse2);
  EXPECT_TRUE(found.avx512) << found.evidence;
  EXPECT_NE(found.evidence.find("hidden inside other instructions' bytes"), std::string::npos) << found.evidence;
}

TEST_F(Detection, OneHiddenZmmInstructionCountsWhereTheFlagsLackAvx512) {
  const std::string source = R"(
unsigned long long hidden_a(void) { return 0x02EBC2B848F5F262ULL; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m * n; ++i) C[i] = A[i % k] * B[i % k] + (double)(hidden_a() == 3);
}
)";
  const auto object = compile(dir, "one", source, {"-O3", "-fno-inline"});
  ASSERT_TRUE(object);
  const ObjectTechniques found = detect_in_object(*object);
  EXPECT_EQ(found.hidden_zmm_instructions, 1);
  EXPECT_TRUE(combine(detect_in_source(source, {"-O3"}), found, VectorIsa::sse2).avx512);
  EXPECT_FALSE(combine(detect_in_source(source, {"-O3"}), found, VectorIsa::avx512).avx512)
      << "where the flags target AVX-512 one may decode by chance";
}

TEST_F(Detection, UndecodableEvexInstructionsCountAsAvx512) {
  // vfmadd132pd zmm0, zmm2, zmm1 (62 f2 ed 48 98 c1), which gcc emits and capstone 4 cannot decode.
  const std::string source = R"(
__attribute__((simd)) double fma3(double a, double b, double c) { return a * b + c; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m * n; ++i) C[i] = fma3(A[i % k], B[i % k], 0.0);
}
)";
  const auto object = compile(dir, "fma", source, {"-O3"});
  ASSERT_TRUE(object);
  const ObjectTechniques found = detect_in_object(*object);
  EXPECT_GT(found.avx512_instructions, 0) << "zmm operands seen: " << found.zmm_instructions;
  EXPECT_TRUE(combine(detect_in_source(source, {"-O3"}), found, VectorIsa::sse2).avx512);
}

// AVX2 FMAs hidden the same way (c4 e2 f5 b8 c2: vfmadd231pd ymm0, ymm1, ymm2; ... da: into ymm3).
TEST_F(Detection, YmmInstructionsHiddenInConstantsAreBeyondSse2Flags) {
  const std::string source = R"(
unsigned long long hidden_a(void) { return 0x02EBC2B8F5E2C490ULL; }
unsigned long long hidden_b(void) { return 0x02EBDAB8F5E2C490ULL; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m * n; ++i) C[i] = A[i % k] * B[i % k] + (double)(hidden_a() == hidden_b());
}
)";
  const auto object = compile(dir, "ymm", source, {"-O3", "-fno-inline"});
  ASSERT_TRUE(object);
  const ObjectTechniques found = detect_in_object(*object);
  EXPECT_EQ(found.vex_instructions, 0);
  EXPECT_EQ(found.hidden_ymm_instructions, 2) << found.first_hidden_ymm_instruction;
  const std::optional<std::string> beyond = code_beyond_flags(found, VectorIsa::sse2);
  ASSERT_TRUE(beyond);
  EXPECT_NE(beyond->find("vfmadd231pd ymm"), std::string::npos) << *beyond;
  EXPECT_FALSE(code_beyond_flags(found, VectorIsa::avx2));
}

TEST_F(Detection, PlainCodeHasNoCodeBeyondItsFlags) {
  for (const std::vector<std::string> &flags : {std::vector<std::string>{"-O0"}, {"-O3"}, {"-O3", "-fopenmp"}})
    for (const char *source : {kPlainIkj, kOpenmp, kBlocked3, kGotoBlas, kMacroIndexed}) {
      const auto object = compile(dir, "plain", source, flags);
      ASSERT_TRUE(object);
      const ObjectTechniques found = detect_in_object(*object);
      EXPECT_EQ(found.avx512_instructions, 0) << found.first_avx512_instruction;
      EXPECT_EQ(found.vex_instructions, 0) << found.first_vex_instruction;
      EXPECT_EQ(found.hidden_ymm_instructions, 0) << found.first_hidden_ymm_instruction;
    }
}

TEST(VectorIsa, FromMacrosAndCloneNames) {
  EXPECT_EQ(vector_isa_from_macros("#define __SSE2__ 1\n"), VectorIsa::sse2);
  EXPECT_EQ(vector_isa_from_macros("#define __AVX__ 1\n#define __AVX2__ 1\n"), VectorIsa::avx2);
  EXPECT_EQ(vector_isa_from_macros("#define __AVX512F__ 1\n#define __AVX__ 1\n"), VectorIsa::avx512);
  EXPECT_EQ(vector_isa_from_macros("#define __AVX512FP16__ 1\n"), VectorIsa::sse2);
  EXPECT_EQ(simd_clone_isa("_ZGVeN8vv_f"), VectorIsa::avx512);
  EXPECT_EQ(simd_clone_isa("_ZGVdM4v_f"), VectorIsa::avx2);
  EXPECT_EQ(simd_clone_isa("_ZGVcN4v_f"), VectorIsa::avx);
  EXPECT_EQ(simd_clone_isa("_ZGVbN2v_f"), VectorIsa::sse2);
  EXPECT_FALSE(simd_clone_isa("_ZGVnN2v_f"));
  EXPECT_FALSE(simd_clone_isa("matmul"));
}

TEST_F(Detection, Blocking) {
  auto used = detect(dir, "blocked", kBlocked3, {"-O3"});
  ASSERT_TRUE(used);
  EXPECT_TRUE(uses(*used, "blocking"));
  EXPECT_EQ(used->tile_sizes, (std::vector<int>{128, 256, 64}));
  auto unused = detect(dir, "plain", kPlainIjk, {"-O3"});
  ASSERT_TRUE(unused);
  EXPECT_FALSE(unused->blocking);
  EXPECT_EQ(unused->loop_order, "ijk");
  auto mentioned = detect(dir, "mention", kMentionsOnly, {"-O3"});
  ASSERT_TRUE(mentioned);
  EXPECT_FALSE(mentioned->blocking);
}

TEST_F(Detection, AllThreeInsideAnOpenmpRegion) {
  auto used = detect(dir, "all", kAllThree, {"-O3", "-fopenmp", "-mavx512f"});
  ASSERT_TRUE(used);
  EXPECT_EQ(technique_names(*used), (std::vector<std::string>{"openmp", "avx512", "blocking"}))
      << used->evidence;
  EXPECT_EQ(used->tile_sizes, std::vector<int>{48});
}

TEST_F(Detection, ObjectThatIsNotElf) {
  const std::filesystem::path junk = dir.path() / "junk.so";
  std::ofstream(junk) << "not an object";
  const ObjectTechniques object = detect_in_object(junk);
  EXPECT_FALSE(object.read);
  EXPECT_FALSE(detect_in_object(dir.path() / "missing.so").read);
  EXPECT_FALSE(combine(detect_in_source(kOpenmp, {"-fopenmp"}), object, VectorIsa::sse2).openmp);
}

// Halves as read from a blocked nest with the given constant tiles (none: runtime-sized).
std::pair<SourceTechniques, ObjectTechniques> blocked_halves(std::vector<int> tiles) {
  SourceTechniques source;
  source.parsed = true;
  source.blocking = true;
  source.tile_sizes = std::move(tiles);
  source.loop_order = "ikj";
  ObjectTechniques object;
  object.read = true;
  return {source, object};
}

TEST(Summary, TilesNoSmallerThanTheTimedShapeAreNotBlocking) {
  const Shape timed{256, 256, 256};
  const auto [whole, object] = blocked_halves({256, 512});
  const TechniqueSummary summary = summarise(whole, object, timed, VectorIsa::sse2);
  EXPECT_TRUE(summary.detected);
  EXPECT_TRUE(summary.techniques.empty());
  EXPECT_EQ(summary.tile_sizes, (std::vector<int>{256, 512})) << "the descriptor keeps its tiles";
  EXPECT_NE(summary.evidence.find("no tile is smaller than the timed shape 256x256x256"),
            std::string::npos)
      << summary.evidence;

  const auto [split, object_of_split] = blocked_halves({64, 256});
  EXPECT_EQ(summarise(split, object_of_split, timed, VectorIsa::sse2).techniques, std::vector<std::string>{"blocking"});
  const auto [runtime_sized, object_of_runtime] = blocked_halves({});
  EXPECT_EQ(summarise(runtime_sized, object_of_runtime, timed, VectorIsa::sse2).techniques,
            std::vector<std::string>{"blocking"});
  EXPECT_EQ(summarise(runtime_sized, object_of_runtime, timed, VectorIsa::sse2).loop_order, "ikj");
}

TEST(Summary, SourceAloneNamesWhatItShows) {
  auto [source, object] = blocked_halves({256});
  source.omp_directives = 1;
  source.avx512_uses = 2;
  EXPECT_EQ(source_technique_names(source), (std::vector<std::string>{"openmp", "avx512", "blocking"}))
      << "no object, no timed shape: nothing is discounted";
  EXPECT_TRUE(source_technique_names(SourceTechniques{}).empty());
}

TEST(TechniqueJson, Shape) {
  TechniqueDescriptor descriptor;
  descriptor.openmp = descriptor.blocking = true;
  descriptor.loop_order = "ikj";
  descriptor.tile_sizes = {64, 64};
  const nlohmann::json json = to_json(descriptor);
  EXPECT_EQ(json["techniques"], (nlohmann::json{"openmp", "blocking"}));
  EXPECT_EQ(json["loop_order"], "ikj");
  EXPECT_EQ(json["tile_sizes"], (nlohmann::json{64, 64}));
}

}  // namespace
}  // namespace hpcreward::techniques
