// Loading the stage ladder: the default file, and each validation error with its message.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "stages/ladder_config.hpp"

namespace hpcreward {
namespace {

LadderConfig load_default() { return load_ladder_config(HPCREWARD_DEFAULT_LADDER); }

TEST(LadderConfig, DefaultFileLoads) {
  LadderConfig config = load_default();
  EXPECT_EQ(config.ladder, (std::vector<std::string>{"o0", "o3", "openmp", "avx512", "blocking"}));
  EXPECT_EQ(config.avx512_unsupported, UnsupportedPolicy::skip);
  EXPECT_FALSE(config.shaping.enabled);
  ASSERT_NE(config.find("open"), nullptr);
  EXPECT_FALSE(config.ladder_index("open"));
  EXPECT_EQ(config.find("o0")->compiler_flags, std::vector<std::string>{"-O0"});
  EXPECT_EQ(config.find("openmp")->compiler_flags, (std::vector<std::string>{"-O3", "-fopenmp"}));
  EXPECT_EQ(config.find("open")->compiler_flags,
            (std::vector<std::string>{"-O3", "-march=native", "-fopenmp"}));
  EXPECT_EQ(config.find("avx512")->techniques_required, std::vector<std::string>{"avx512"});
  EXPECT_EQ(config.find("blocking")->techniques_allowed,
            (std::vector<std::string>{"openmp", "avx512", "blocking"}));
  EXPECT_TRUE(config.find("blocking")->advance.empty());
  EXPECT_FALSE(config.find("o0")->advance.empty());
}

TEST(LadderConfig, MissingFileSaysSo) {
  try {
    load_ladder_config("/nonexistent/ladder.json");
    FAIL();
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/ladder.json: cannot open"), std::string::npos);
  }
}

// A small valid config with one spot to break.
std::string config_with(const std::string &stage_b, const std::string &extra = "",
                        const std::string &ladder = R"(["a", "b"])") {
  return R"({"ladder": )" + ladder + extra + R"(, "stages": [
    {"name": "a", "flags": ["-O0"], "advance": [{"type": "max_candidates", "window": 3}]},
    )" + stage_b + "]}";
}
const std::string kGoodB = R"({"name": "b", "flags": ["-O3"], "allows": ["openmp"], "requires": ["openmp"]})";

void expect_error(const std::string &json, const std::string &message) {
  try {
    parse_ladder_config(json, "test.json");
    FAIL() << "accepted; expected an error with: " << message;
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("test.json: ", 0), 0u) << e.what();
  }
}

TEST(LadderConfig, SmallValidConfigParses) {
  LadderConfig config = parse_ladder_config(config_with(kGoodB, R"(, "avx512_unsupported": "refuse",
    "archive_shaping": {"enabled": true, "new_niche_bonus": 3, "new_elite_bonus": 1.5})"), "test.json");
  EXPECT_EQ(config.avx512_unsupported, UnsupportedPolicy::refuse);
  EXPECT_TRUE(config.shaping.enabled);
  EXPECT_EQ(config.shaping.new_niche_bonus, 3);
  EXPECT_EQ(config.shaping.new_elite_bonus, 1.5);
  ASSERT_EQ(config.find("a")->advance.size(), 1u);
  EXPECT_EQ(config.find("a")->advance[0].type, RuleType::max_candidates);
  EXPECT_EQ(config.find("a")->advance[0].window, 3);
}

TEST(LadderConfig, RejectsBadJson) { expect_error("{", "not valid JSON"); }

TEST(LadderConfig, RejectsUnknownTechnique) {
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "allows": ["simd"]})"),
               "stage \"b\": unknown technique \"simd\" in \"allows\" (known: openmp, avx512, blocking)");
}

TEST(LadderConfig, RejectsDuplicateStage) {
  expect_error(config_with(R"({"name": "a", "flags": ["-O3"]})"),
               "stage \"a\": duplicate stage name");
}

TEST(LadderConfig, RejectsRequiredButNotAllowed) {
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "requires": ["blocking"]})"),
               "stage \"b\": requires \"blocking\" but does not allow it: add \"blocking\" to \"allows\"");
}

TEST(LadderConfig, RejectsEmptyFlags) {
  expect_error(config_with(R"({"name": "b", "flags": []})"), "stage \"b\": empty \"flags\"");
  expect_error(config_with(R"({"name": "b"})"), "stage \"b\": empty \"flags\"");
  expect_error(config_with(R"({"name": "b", "flags": ["O3"]})"), "does not start with '-'");
}

TEST(LadderConfig, RejectsUnknownRuleType) {
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "advance": [{"type": "vibes"}]})"),
               "stage \"b\": unknown rule type \"vibes\"");
}

TEST(LadderConfig, RejectsBadThresholds) {
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "advance": [{"type": "best_gflops", "threshold": -1}]})"),
               "stage \"b\" rule best_gflops: bad threshold");
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "advance": [{"type": "best_fraction_of_blas", "threshold": 50}]})"),
               "rule best_fraction_of_blas: bad threshold");
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "advance": [{"type": "success_rate", "threshold": 1.5, "window": 10}]})"),
               "rule success_rate: bad threshold");
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "advance": [{"type": "success_rate", "threshold": 0.5}]})"),
               "rule success_rate: needs a positive integer \"window\"");
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "advance": [{"type": "plateau", "window": 0}]})"),
               "rule plateau: needs a positive integer \"window\"");
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "advance": [{"type": "best_gflops"}]})"),
               "rule best_gflops: needs a number \"threshold\"");
}

TEST(LadderConfig, RejectsLadderNamingMissingStage) {
  expect_error(config_with(kGoodB, "", R"(["a", "b", "c"])"),
               "ladder: names stage \"c\", which \"stages\" does not define");
  expect_error(config_with(kGoodB, "", R"(["a", "a"])"), "ladder: names stage \"a\" twice");
  expect_error(config_with(kGoodB, "", "[]"), "non-empty array \"ladder\"");
  expect_error(config_with(kGoodB, "", R"(["b"])"),
               "stage \"a\": has \"advance\" rules but is not in \"ladder\"");
}

TEST(LadderConfig, RejectsUnknownKeysAndPolicies) {
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "require": ["openmp"]})"),
               "stage \"b\": unknown key \"require\"");
  expect_error(config_with(kGoodB, R"(, "avx512_unsupported": "ignore")"),
               "avx512_unsupported: must be \"skip\" or \"refuse\"");
  expect_error(config_with(kGoodB, R"(, "archive_shaping": {"new_niche_bonus": -1})"),
               "archive_shaping: \"new_niche_bonus\" must be >= 0");
}

TEST(LadderConfig, UnsupportedStagesOnHostWithoutAvx512) {
  LadderConfig config = load_default();
  EXPECT_TRUE(unsupported_stages(config, true).empty());
  std::vector<UnsupportedStage> unsupported = unsupported_stages(config, false);
  // blocking compiles with -mavx512f too, so its binaries would not run there either.
  ASSERT_EQ(unsupported.size(), 2u);
  EXPECT_EQ(unsupported[0].stage, "avx512");
  EXPECT_EQ(unsupported[0].reason, "stage avx512 requires avx512, which this host does not support");
  EXPECT_EQ(unsupported[1].stage, "blocking");
}

}  // namespace
}  // namespace hpcreward
