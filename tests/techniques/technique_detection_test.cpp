// Both halves together, on objects compiled by gcc (read, never loaded), and the summary a
// rank reports from them.
#include "techniques/technique_detection.hpp"

#include <gtest/gtest.h>

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
  return combine(detect_in_source(source, flags), detect_in_object(*object));
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
  EXPECT_FALSE(combine(detect_in_source(kOpenmp, {"-fopenmp"}), object).openmp);
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
  const TechniqueSummary summary = summarise(whole, object, timed);
  EXPECT_TRUE(summary.detected);
  EXPECT_TRUE(summary.techniques.empty());
  EXPECT_EQ(summary.tile_sizes, (std::vector<int>{256, 512})) << "the descriptor keeps its tiles";
  EXPECT_NE(summary.evidence.find("no tile is smaller than the timed shape 256x256x256"),
            std::string::npos)
      << summary.evidence;

  const auto [split, object_of_split] = blocked_halves({64, 256});
  EXPECT_EQ(summarise(split, object_of_split, timed).techniques, std::vector<std::string>{"blocking"});
  const auto [runtime_sized, object_of_runtime] = blocked_halves({});
  EXPECT_EQ(summarise(runtime_sized, object_of_runtime, timed).techniques,
            std::vector<std::string>{"blocking"});
  EXPECT_EQ(summarise(runtime_sized, object_of_runtime, timed).loop_order, "ikj");
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
