// Both halves together, on objects compiled by gcc (read, never loaded).
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
