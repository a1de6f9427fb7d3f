#include "prompts/model_feedback.hpp"

#include <gtest/gtest.h>

#include <string>

#include "common/problem_catalog.hpp"
#include "prompts/prompt_fields.hpp"
#include "stages/builtin_ladder.hpp"

namespace hpcreward::prompts {
namespace {

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

class Feedback : public ::testing::Test {
 protected:
  ProblemCatalog catalog = load_problem_catalog("default");
  LadderConfig ladder = parse_ladder_config(builtin_ladder_json(), "default_ladder.json");
  const Problem *dgemm = catalog.find("dgemm-256");

  FeedbackInputs inputs(std::string_view status, std::string_view reason, const char *stage = "o0") {
    FeedbackInputs in;
    in.status = status;
    in.reason = reason;
    in.problem = dgemm;
    in.stage = ladder.find(stage);
    return in;
  }
};

// The reasons below are what ranks wrote for these failures (2026-11-28, this machine).
TEST_F(Feedback, ACompileErrorGivesTheCompilersLineAndTheStagesFlags) {
  const std::string text =
      model_feedback(inputs("compile_error", "compiler failed (exit 1): cand.c:3:45: error: expected ';' before '}' token"));
  EXPECT_EQ(text, "It did not compile: cand.c:3:45: error: expected ';' before '}' token. Stage o0 compiles with -O0.");
}

TEST_F(Feedback, AStageRuleSaysWhatTheStageRequiresAndAllows) {
  const std::string text = model_feedback(
      inputs("constraint_violation", "stage openmp requires openmp, which the candidate does not use", "openmp"));
  EXPECT_TRUE(contains(text, "Refused by the rules of stage openmp: stage openmp requires openmp")) << text;
  EXPECT_TRUE(contains(text, "It requires " + technique_words("openmp") + ".")) << text;
  EXPECT_TRUE(contains(text, "It allows: openmp, simd.")) << text;
}

TEST_F(Feedback, AWrongAnswerSaysWhereAndWhatIsChecked) {
  const std::string text =
      model_feedback(inputs("wrong_answer", "wrong result at 256x256x256: relative error 0.00375 > tolerance 1e-10"));
  EXPECT_TRUE(contains(text, "Wrong answer: wrong result at 256x256x256: relative error 0.00375 > tolerance 1e-10.")) << text;
  EXPECT_TRUE(contains(text, "256x256x256, 257x255x263, 31x17x23")) << text;
}

// CUDA-L2's fp16-accumulation kernels in its fp32-accumulation folder, as an H200 rank worded
// their failure (2026-12-03): the feedback says where the precision goes; not for a large
// error, nor where fp16 accumulation is allowed.
TEST_F(Feedback, ARoundingSizedErrorOfAnFp32AccumulationProblemSaysToAccumulateInFloat) {
  const ProblemCatalog l2 = load_problem_catalog("cuda-l2");
  FeedbackInputs in = inputs("wrong_answer", "relative error 0.00166493 exceeds 0.00055 at 128x12288x2048", "cuda-cutlass");
  in.problem = l2.find("l2-128x12288x2048-nt");
  ASSERT_NE(in.problem, nullptr);
  const std::string hint = "An error of this size is what fp16 accumulation gives at k = 2048: this problem "
                           "accumulates in fp32, so keep the MMA's accumulators and any partial sums in float.";
  EXPECT_TRUE(contains(model_feedback(in), hint)) << model_feedback(in);
  in.reason = "relative error 0.5 exceeds 0.00055 at 128x12288x2048";
  EXPECT_FALSE(contains(model_feedback(in), "fp16 accumulation")) << model_feedback(in);
  in.reason = "relative error 0.00166493 exceeds 0.00055 at 128x12288x2048";
  in.problem = l2.find("l2-128x12288x2048-nt-f16acc");
  ASSERT_NE(in.problem, nullptr);
  EXPECT_FALSE(contains(model_feedback(in), "fp16 accumulation")) << model_feedback(in);
  EXPECT_FALSE(contains(model_feedback(inputs("wrong_answer", "relative error 1e-9 exceeds 1e-10 at 256x256x256")),
                        "fp16 accumulation"));
  // Below k = 256 an fp16 accumulator is as accurate as C's rounding: something else failed.
  in.problem = l2.find("l2-1024x1024x128-nt");
  ASSERT_NE(in.problem, nullptr);
  in.reason = "relative error 0.0006 exceeds 0.00055 at 1024x1024x128";
  EXPECT_FALSE(contains(model_feedback(in), "fp16 accumulation")) << model_feedback(in);
}

TEST_F(Feedback, ATimeoutGivesTheLimitWithoutTheWatchdogsArithmetic) {
  const std::string text = model_feedback(inputs(
      "timeout", "a call into the candidate did not return within 2.17955 s (the run's watchdog) (limit: 1 s start + "
                 "the larger of 1 s and (--time-limit-factor 2000 + 1) x 0.000589 s (the largest call at the rank's 58.5 "
                 "GFLOPS per core) = 2.18 s without progress)"));
  EXPECT_EQ(text, "Too slow: a call did not return within 2.18 s, this problem's time limit on this hardware (it scales "
                  "with the problem's size and the hardware's speed).");
}

TEST_F(Feedback, OkGivesTheSpeedItsShareOfTheLibraryAndTheTechniques) {
  FeedbackInputs in = inputs("ok", "", "blocking");
  in.gflops = 105.1;
  in.yardsticks.openblas = 55.3;
  in.techniques = "avx512+blocking";
  in.loop_order = "ikj";
  in.tile_sizes = "128";
  const std::string text = model_feedback(in);
  EXPECT_TRUE(contains(text, "Correct at every checked shape. 105.1 GFLOPS at 256x256x256, 190% of OpenBLAS (55.3 GFLOPS)"))
      << text;
  EXPECT_TRUE(contains(text, "Techniques detected: avx512+blocking, loop order ikj, tiles 128.")) << text;
}

TEST_F(Feedback, HarnessInternalsAreScrubbed) {
  EXPECT_EQ(scrubbed("compiler failed (exit 1): /tmp/hpcreward-work-Ab3x/k7/cand.c:3:1: error"),
            "compiler failed (exit 1): cand.c:3:1: error");
  EXPECT_EQ(scrubbed("killed by SIGSEGV at 0x7ffd5e3a9c10 in pid 41234"), "killed by SIGSEGV at an address in a process");
  EXPECT_EQ(scrubbed("the inputs of seed 9123 differ"), "the inputs of a secret seed differ");
  EXPECT_EQ(scrubbed("exceeded the limit (--gpu-host-memory-mb 16384)"), "exceeded the limit");
  for (const char *status : {"compile_error", "runtime_error", "forbidden", "wrong_answer", "format_error"})
    EXPECT_FALSE(contains(model_feedback(inputs(status, "at /work/secret/harness/path.c pid 77 seed 5")), "/work"));
}

TEST_F(Feedback, EveryFeedbackIsBounded) {
  const std::string long_reason(5000, 'x');
  for (const char *status : {"ok", "compile_error", "constraint_violation", "forbidden", "wrong_answer", "runtime_error",
                             "timeout", "format_error"}) {
    const std::string text = model_feedback(inputs(status, long_reason));
    EXPECT_LE(text.size(), kMaxFeedbackBytes) << status;
    EXPECT_FALSE(text.empty()) << status;
  }
  FeedbackInputs unknown = inputs("format_error", "no problem zgemm-9");
  unknown.problem = nullptr;
  unknown.stage = nullptr;
  EXPECT_TRUE(contains(model_feedback(unknown), "no problem zgemm-9"));
}

TEST_F(Feedback, TheJudgedPartOpensTheFeedbackAndComesOffAgain) {
  const std::string feedback = model_feedback(inputs("wrong_answer", "wrong result at 256x256x256"));
  const std::string noted = with_judged_part("block 2 of 3 (```c, lines 14-60), the one that defines matmul", feedback);
  EXPECT_EQ(noted, "Judged block 2 of 3 (```c, lines 14-60), the one that defines matmul. " + feedback);
  EXPECT_EQ(without_judged_part(noted), feedback);
  EXPECT_EQ(with_judged_part("", feedback), feedback);
  EXPECT_EQ(without_judged_part(feedback), feedback);
  // Within the column, the note kept whole; a full stop inside the note would end it early.
  const std::string long_feedback = model_feedback(inputs("compile_error", std::string(5000, 'x')));
  const std::string bounded = with_judged_part("block 1 of 1 (```c, lines 1-9) v1.2", long_feedback);
  EXPECT_LE(bounded.size(), kMaxFeedbackBytes);
  EXPECT_EQ(bounded.rfind("Judged block 1 of 1 (```c, lines 1-9) v1,2. It did not compile: xxx", 0), 0u) << bounded;
  EXPECT_EQ(without_judged_part(bounded).substr(0, 20), "It did not compile: ");
}

}  // namespace
}  // namespace hpcreward::prompts
