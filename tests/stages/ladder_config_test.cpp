// Loading the stage ladder: the default file, and each validation error with its message.
#include <gtest/gtest.h>

#include <algorithm>
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
            (std::vector<std::string>{"openmp", "avx512", "blocking", "simd"}));
  // SSE and AVX2 intrinsics are allowed in every C stage and required in none.
  for (const char *stage : {"o0", "o3", "openmp", "avx512", "blocking", "open"}) {
    const auto &allowed = config.find(stage)->techniques_allowed;
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), "simd"), allowed.end()) << stage;
    EXPECT_TRUE(config.find(stage)->techniques_required.empty() ||
                config.find(stage)->techniques_required != std::vector<std::string>{"simd"}) << stage;
  }
  EXPECT_TRUE(config.find("blocking")->advance.empty());
  EXPECT_FALSE(config.find("o0")->advance.empty());
  EXPECT_EQ(config.find("open")->language, Language::c);
}

TEST(LadderConfig, DefaultFileHasTheCudaLadder) {
  LadderConfig config = load_default();
  EXPECT_EQ(config.cuda_ladder,
            (std::vector<std::string>{"cuda-naive", "cuda-smem", "cuda-tensor", "cuda-async", "cuda-hopper"}));
  EXPECT_EQ(&config.ladder_for(Language::cuda), &config.cuda_ladder);
  EXPECT_EQ(&config.ladder_for(Language::c), &config.ladder);
  for (const char *name : {"cuda-naive", "cuda-smem", "cuda-tensor", "cuda-async", "cuda-open"}) {
    ASSERT_NE(config.find(name), nullptr) << name;
    EXPECT_EQ(config.find(name)->language, Language::cuda) << name;
    EXPECT_EQ(config.find(name)->compiler_flags, std::vector<std::string>{"-O3"}) << name;
  }
  EXPECT_EQ(config.ladder_index("cuda-smem", Language::cuda), 1u);
  EXPECT_FALSE(config.ladder_index("cuda-smem", Language::c));
  EXPECT_FALSE(config.ladder_index("cuda-open", Language::cuda));
  EXPECT_TRUE(config.find("cuda-naive")->techniques_allowed.empty());
  EXPECT_TRUE(config.find("cuda-naive")->techniques_required.empty());
  EXPECT_EQ(config.find("cuda-smem")->techniques_allowed, std::vector<std::string>{"smem"});
  EXPECT_EQ(config.find("cuda-smem")->techniques_required, std::vector<std::string>{"smem"});
  EXPECT_EQ(config.find("cuda-tensor")->techniques_allowed, (std::vector<std::string>{"smem", "tensor"}));
  EXPECT_EQ(config.find("cuda-tensor")->techniques_required, std::vector<std::string>{"tensor"});
  EXPECT_EQ(config.find("cuda-async")->techniques_allowed,
            (std::vector<std::string>{"smem", "tensor", "async"}));
  EXPECT_EQ(config.find("cuda-async")->techniques_required, std::vector<std::string>{"async"});
  EXPECT_EQ(config.find("cuda-open")->techniques_allowed,
            (std::vector<std::string>{"smem", "tensor", "async"}));
  EXPECT_TRUE(config.find("cuda-open")->techniques_required.empty());
  EXPECT_FALSE(config.find("cuda-async")->advance.empty());
  EXPECT_TRUE(config.find("cuda-hopper")->advance.empty());
  EXPECT_EQ(config.find("cuda-hopper")->techniques_required, (std::vector<std::string>{"wgmma", "tma"}));
  EXPECT_EQ(config.find("cuda-hopper")->libraries, std::vector<std::string>{"cute"});
  const auto &naive = config.find("cuda-naive")->advance;
  ASSERT_EQ(naive.size(), 2u);
  EXPECT_EQ(naive[0].type, RuleType::success_rate);
  EXPECT_EQ(naive[0].threshold, 0.8);
  EXPECT_EQ(naive[0].window, 20);
  EXPECT_EQ(naive[1].type, RuleType::max_candidates);
  EXPECT_EQ(naive[1].window, 400);
  const auto &smem = config.find("cuda-smem")->advance;
  ASSERT_EQ(smem.size(), 3u);
  EXPECT_EQ(smem[0].type, RuleType::best_fraction_of_blas);
  EXPECT_EQ(smem[0].threshold, 0.1);
  EXPECT_EQ(smem[1].type, RuleType::plateau);
  EXPECT_EQ(smem[1].window, 5);
  EXPECT_EQ(smem[2].window, 240);
  EXPECT_EQ(config.find("cuda-tensor")->advance.at(0).threshold, 0.3);
}

TEST(LadderConfig, DemoFileLoadsWithBothLadders) {
  LadderConfig config = load_ladder_config(HPCREWARD_DEMO_LADDER);
  EXPECT_EQ(config.ladder.front(), "o0");
  EXPECT_EQ(config.cuda_ladder,
            (std::vector<std::string>{"cuda-naive", "cuda-smem", "cuda-tensor", "cuda-async"}));
  ASSERT_NE(config.find("cuda-open"), nullptr);
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
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "allows": ["sse"]})"),
               "stage \"b\": unknown technique \"sse\" in \"allows\" (known: C stages: openmp, avx512, "
               "blocking, simd; CUDA stages: smem, tensor, async, wgmma, tma)");
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
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "advance": [{"type": "best_fraction_of_yardstick", "threshold": 0}]})"),
               "rule best_fraction_of_yardstick: bad threshold: a fraction of the yardstick must be in (0, 10]");
  EXPECT_EQ(parse_ladder_config(config_with(R"({"name": "b", "flags": ["-O3"], "advance": [{"type": "best_fraction_of_yardstick", "threshold": 0.25}]})"),
                                "test.json")
                .find("b")->advance[0].type,
            RuleType::best_fraction_of_yardstick);
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

// A config with a C ladder [a] and a CUDA ladder [x, y]; `stage_y` is the spot to break.
std::string cuda_config_with(const std::string &stage_y, const std::string &cuda_ladder = R"(["x", "y"])",
                             const std::string &ladder = R"(["a"])") {
  return R"({"ladder": )" + ladder + R"(, "cuda_ladder": )" + cuda_ladder + R"(, "stages": [
    {"name": "a", "flags": ["-O0"]},
    {"name": "x", "language": "cuda", "flags": ["-O3"], "advance": [{"type": "max_candidates", "window": 3}]},
    )" + stage_y + "]}";
}
const std::string kGoodY =
    R"({"name": "y", "language": "cuda", "flags": ["-O3"], "allows": ["smem", "tensor"], "requires": ["tensor"]})";

TEST(LadderConfig, CudaLadderParses) {
  LadderConfig config = parse_ladder_config(cuda_config_with(kGoodY), "test.json");
  EXPECT_EQ(config.ladder, std::vector<std::string>{"a"});
  EXPECT_EQ(config.cuda_ladder, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(config.find("a")->language, Language::c);
  EXPECT_EQ(config.find("y")->language, Language::cuda);
  EXPECT_EQ(config.find("y")->techniques_required, std::vector<std::string>{"tensor"});
  // Without "cuda_ladder" (a ladder file from before CUDA): no CUDA ladder, no error.
  EXPECT_TRUE(parse_ladder_config(config_with(kGoodB), "test.json").cuda_ladder.empty());
}

TEST(LadderConfig, RejectsTechniquesOfTheOtherLanguage) {
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "allows": ["smem"]})"),
               "stage \"b\": technique \"smem\" in \"allows\" is a CUDA technique, but this is a C stage "
               "(its techniques: openmp, avx512, blocking, simd): set \"language\": \"cuda\" on the stage, or drop it");
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "allows": ["tensor"], "requires": ["tensor"]})"),
               "technique \"tensor\" in \"allows\" is a CUDA technique");
  expect_error(cuda_config_with(R"({"name": "y", "language": "cuda", "flags": ["-O3"], "allows": ["openmp"]})"),
               "stage \"y\": technique \"openmp\" in \"allows\" is a C technique, but this is a CUDA stage "
               "(its techniques: smem, tensor, async, wgmma, tma): drop it");
  expect_error(cuda_config_with(R"({"name": "y", "language": "cuda", "flags": ["-O3"], "requires": ["blocking"]})"),
               "stage \"y\": technique \"blocking\" in \"requires\" is a C technique");
}

TEST(LadderConfig, RejectsStagesInTheOtherLanguagesLadder) {
  expect_error(cuda_config_with(kGoodY, R"(["x", "y"])", R"(["a", "x"])"),
               "ladder: names stage \"x\", a CUDA stage: CUDA stages belong in \"cuda_ladder\"; move it there");
  expect_error(cuda_config_with(kGoodY, R"(["x", "a"])"),
               "cuda_ladder: names stage \"a\", a C stage: C stages belong in \"ladder\"");
  expect_error(cuda_config_with(kGoodY, R"(["x", "z"])"),
               "cuda_ladder: names stage \"z\", which \"stages\" does not define");
  expect_error(cuda_config_with(kGoodY, R"(["x", "x"])"), "cuda_ladder: names stage \"x\" twice");
  expect_error(cuda_config_with(kGoodY, "[]"), "cuda_ladder: is empty");
  expect_error(cuda_config_with(kGoodY, R"(["y"])"),
               "stage \"x\": has \"advance\" rules but is not in \"cuda_ladder\": add it to \"cuda_ladder\"");
}

TEST(LadderConfig, LibrariesAreForCudaStagesAndKnownNames) {
  LadderConfig config = parse_ladder_config(
      cuda_config_with(R"({"name": "y", "language": "cuda", "flags": ["-O3"], "allows": ["tensor"], "libraries": ["cute"]})"),
      "test.json");
  EXPECT_EQ(config.find("y")->libraries, std::vector<std::string>{"cute"});
  EXPECT_TRUE(config.find("x")->libraries.empty());
  expect_error(cuda_config_with(R"({"name": "y", "language": "cuda", "flags": ["-O3"], "libraries": ["thrust"]})"),
               "stage \"y\": unknown library \"thrust\" in \"libraries\" (known: cute, cutlass)");
  expect_error(config_with(R"({"name": "b", "flags": ["-O3"], "libraries": ["cute"]})"),
               "stage \"b\": \"libraries\": [\"cute\"] is for CUDA stages (\"language\": \"cuda\")");
  expect_error(cuda_config_with(R"({"name": "y", "language": "cuda", "flags": ["-O3"], "libraries": "cute"})"),
               "\"libraries\" must be an array of strings");
}

TEST(LadderConfig, TheDefaultLadderHasCuteAndCutlassStagesOutsideTheLadder) {
  LadderConfig config = load_default();
  for (const char *name : {"cuda-cute", "cuda-cutlass"}) {
    const StageSpec *stage = config.find(name);
    ASSERT_NE(stage, nullptr) << name;
    EXPECT_EQ(stage->language, Language::cuda);
    EXPECT_FALSE(config.ladder_index(name, Language::cuda)) << name;
    EXPECT_TRUE(stage->techniques_required.empty()) << name;
  }
  EXPECT_EQ(config.find("cuda-cute")->libraries, std::vector<std::string>{"cute"});
  EXPECT_EQ(config.find("cuda-cutlass")->libraries, std::vector<std::string>{"cutlass"});
  for (const StageSpec &stage : config.stages)
    EXPECT_EQ(stage.libraries.empty(),
              stage.name != "cuda-cute" && stage.name != "cuda-cutlass" && stage.name != "cuda-hopper")
        << stage.name;
}

TEST(LadderConfig, HopperStagesAreSkippedOffHopperAndByFp64Problems) {
  LadderConfig config = load_default();
  RankSupport hopper;
  EXPECT_TRUE(unsupported_stages(config, hopper).empty());
  RankSupport ampere;
  ampere.gpu_without_hopper = "GPU rank 3 (node7, sm_80)";
  const std::vector<UnsupportedStage> skipped = unsupported_stages(config, ampere);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].stage, "cuda-hopper");
  EXPECT_EQ(skipped[0].language, Language::cuda);
  EXPECT_FALSE(unsupported_reason(*config.find("cuda-cutlass"), ampere)) << "CUTLASS runs anywhere";
  RankSupport without_cute;
  without_cute.gpu_without_cute = "GPU rank 2 (node7)";
  EXPECT_EQ(unsupported_stages(config, without_cute).size(), 1u);
  EXPECT_TRUE(unsupported_reason(*config.find("cuda-cutlass"), without_cute));
  EXPECT_FALSE(unsupported_reason(*config.find("cuda-async"), without_cute));
  Problem dgemm, sgemm;
  dgemm.id = "cuda-dgemm-1024";
  dgemm.language = sgemm.language = Language::cuda;
  dgemm.precision = Precision::f64;
  sgemm.precision = Precision::f32;
  EXPECT_TRUE(unsupported_for_problem(*config.find("cuda-hopper"), dgemm));
  EXPECT_FALSE(unsupported_for_problem(*config.find("cuda-hopper"), sgemm)) << "TF32 wgmma";
  EXPECT_FALSE(unsupported_for_problem(*config.find("cuda-async"), dgemm));
}

TEST(LadderConfig, RejectsBadLanguage) {
  expect_error(cuda_config_with(R"({"name": "y", "language": "ptx", "flags": ["-O3"]})"),
               "stage \"y\": \"language\" must be \"c\" (the default) or \"cuda\"");
  expect_error(cuda_config_with(R"({"name": "y", "language": 1, "flags": ["-O3"]})"),
               "\"language\" must be");
}

TEST(LadderConfig, CudaStagesAreNeverUnsupportedForLackOfAvx512) {
  LadderConfig config = load_default();
  for (const UnsupportedStage &stage : unsupported_stages(config, false))
    EXPECT_NE(config.find(stage.stage)->language, Language::cuda) << stage.stage;
  StageSpec odd = *config.find("cuda-open");
  odd.compiler_flags.push_back("-mavx512f");  // a host flag on a CUDA stage means nothing for AVX-512 here
  EXPECT_FALSE(unsupported_reason(odd, false));
  EXPECT_TRUE(unsupported_reason(*config.find("avx512"), false));
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
