// Per-problem advancement under each rule, skipping unsupported stages, and rebuilding the
// state from the log after a restart.
#include <gtest/gtest.h>

#include "stages/advancement.hpp"

namespace hpcreward {
namespace {

// Ladder a -> b -> c whose stage a has the one rule under test; c is last.
LadderConfig ladder_with_rule(const std::string &rule) {
  return parse_ladder_config(R"({"ladder": ["a", "b", "c"], "stages": [
    {"name": "a", "flags": ["-O0"], "advance": [)" + rule + R"(]},
    {"name": "b", "flags": ["-O3"], "advance": [)" + rule + R"(]},
    {"name": "c", "flags": ["-O3"], "advance": [)" + rule + R"(]},
    {"name": "open", "flags": ["-O3"]}]})",
                             "test");
}

StageObservation ok_row(const std::string &stage, double gflops, const std::string &batch,
                        std::optional<double> blas = {}) {
  return {"dgemm-256", stage, Status::ok, gflops, gflops, batch, blas};
}
StageObservation failed_row(const std::string &stage, const std::string &batch) {
  return {"dgemm-256", stage, Status::wrong_answer, -10, 0, batch, {}};
}

TEST(Advancement, StartsAtFirstStageAndNeverAdvancesWithoutData) {
  LadderConfig config = ladder_with_rule(R"({"type": "max_candidates", "window": 1})");
  ProblemProgress progress(config, "dgemm-256");
  EXPECT_EQ(progress.current_stage(), "a");
  EXPECT_FALSE(progress.maybe_advance(1.0));
}

TEST(Advancement, BestGflopsThreshold) {
  LadderConfig config = ladder_with_rule(R"({"type": "best_gflops", "threshold": 10})");
  ProblemProgress progress(config, "dgemm-256");
  progress.observe(ok_row("a", 9.5, "b1"));
  progress.observe(failed_row("a", "b1"));
  EXPECT_FALSE(progress.maybe_advance(1.0));  // not yet: below the threshold
  progress.observe(ok_row("a", 10.0, "b2"));
  std::optional<StageEvent> event = progress.maybe_advance(42.0);
  ASSERT_TRUE(event);
  EXPECT_EQ(*event, (StageEvent{"dgemm-256", "a", "b", "best_gflops", "best 10 GFLOPS >= 10", 42.0}));
  EXPECT_EQ(progress.current_stage(), "b");
  EXPECT_EQ(progress.stats().candidates, 0u);  // the new stage starts afresh
  EXPECT_FALSE(progress.maybe_advance(43.0));
}

TEST(Advancement, FailuresNeverCountAsQuality) {
  LadderConfig config = ladder_with_rule(R"({"type": "best_gflops", "threshold": 10})");
  ProblemProgress progress(config, "dgemm-256");
  StageObservation fake = failed_row("a", "b1");
  fake.gflops = 1000;  // a wrong answer's speed is meaningless
  progress.observe(fake);
  EXPECT_FALSE(progress.maybe_advance(1.0));
}

TEST(Advancement, BestFractionOfBlas) {
  LadderConfig config = ladder_with_rule(R"({"type": "best_fraction_of_blas", "threshold": 0.5})");
  ProblemProgress progress(config, "dgemm-256");
  progress.observe(ok_row("a", 60, "b1"));       // rank's OpenBLAS unknown: does not count
  progress.observe(ok_row("a", 40, "b1", 100));  // 0.4
  EXPECT_FALSE(progress.maybe_advance(1.0));
  progress.observe(ok_row("a", 30, "b2", 50));   // 0.6 on a slower rank
  std::optional<StageEvent> event = progress.maybe_advance(2.0);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->rule, "best_fraction_of_blas");
  EXPECT_EQ(event->detail, "best 0.6 of OpenBLAS >= 0.5");
}

TEST(Advancement, BestFractionOfTheProblemsYardstick) {
  LadderConfig config = ladder_with_rule(R"({"type": "best_fraction_of_yardstick", "threshold": 0.5})");
  ProblemProgress progress(config, "dgemm-256");
  progress.observe(ok_row("a", 60, "b1", 10));  // a row without its yardstick does not count
  StageObservation slow = ok_row("a", 40, "b1", 10);
  slow.yardstick_gflops = 100;  // 0.4, though 4x the rank's OpenBLAS ceiling
  progress.observe(slow);
  EXPECT_FALSE(progress.maybe_advance(1.0));
  StageObservation fast = ok_row("a", 30, "b2");
  fast.yardstick_gflops = 50;  // 0.6 of the problem's library on a slower rank
  progress.observe(fast);
  std::optional<StageEvent> event = progress.maybe_advance(2.0);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->rule, "best_fraction_of_yardstick");
  EXPECT_EQ(event->detail, "best 0.6 of the problem's yardstick >= 0.5");
}

TEST(Advancement, SuccessRateNeedsAFullWindow) {
  LadderConfig config = ladder_with_rule(R"({"type": "success_rate", "threshold": 0.75, "window": 4})");
  ProblemProgress progress(config, "dgemm-256");
  for (int i = 0; i < 3; ++i) progress.observe(ok_row("a", 1, "b1"));
  EXPECT_FALSE(progress.maybe_advance(1.0));  // 3 of 3, but the window holds 4
  progress.observe(failed_row("a", "b1"));
  progress.observe(failed_row("a", "b2"));      // last 4: ok ok fail fail = 0.5
  EXPECT_FALSE(progress.maybe_advance(1.0));
  progress.observe(ok_row("a", 1, "b2"));       // ok fail fail ok
  progress.observe(ok_row("a", 1, "b2"));       // fail fail ok ok
  EXPECT_FALSE(progress.maybe_advance(1.0));
  progress.observe(ok_row("a", 1, "b3"));       // fail ok ok ok = 0.75
  std::optional<StageEvent> event = progress.maybe_advance(2.0);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->rule, "success_rate");
  EXPECT_EQ(event->detail, "3 of the last 4 ok (0.75 >= 0.75)");
}

TEST(Advancement, PlateauCountsBatchesWithoutImprovement) {
  LadderConfig config = ladder_with_rule(R"({"type": "plateau", "window": 2})");
  ProblemProgress progress(config, "dgemm-256");
  progress.observe(failed_row("a", "b0"));
  progress.observe(failed_row("a", "b1"));
  progress.observe(failed_row("a", "b2"));
  EXPECT_FALSE(progress.maybe_advance(1.0));  // nothing verified yet: no best to plateau at
  progress.observe(ok_row("a", 5, "b3"));
  progress.observe(ok_row("a", 4, "b4"));
  EXPECT_FALSE(progress.maybe_advance(1.0));  // one batch without improvement
  progress.observe(ok_row("a", 6, "b5"));     // improves: the count restarts
  progress.observe(ok_row("a", 6, "b6"));     // equal is no improvement
  EXPECT_FALSE(progress.maybe_advance(1.0));
  progress.observe(ok_row("a", 6, "b6"));     // same batch again: still one
  EXPECT_FALSE(progress.maybe_advance(1.0));
  progress.observe(failed_row("a", "b7"));
  std::optional<StageEvent> event = progress.maybe_advance(2.0);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->rule, "plateau");
  EXPECT_EQ(event->detail, "best 6 GFLOPS not improved over 2 batches");
}

TEST(Advancement, MaxCandidates) {
  LadderConfig config = ladder_with_rule(R"({"type": "max_candidates", "window": 3})");
  ProblemProgress progress(config, "dgemm-256");
  progress.observe(failed_row("a", "b1"));
  progress.observe(ok_row("a", 1, "b1"));
  EXPECT_FALSE(progress.maybe_advance(1.0));
  progress.observe(failed_row("a", "b2"));
  std::optional<StageEvent> event = progress.maybe_advance(2.0);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->rule, "max_candidates");
  EXPECT_EQ(event->detail, "3 candidates >= 3");
}

TEST(Advancement, IgnoresOtherStagesAndProblems) {
  LadderConfig config = ladder_with_rule(R"({"type": "max_candidates", "window": 1})");
  ProblemProgress progress(config, "dgemm-256");
  progress.observe(ok_row("open", 1, "b1"));  // an explicit stage outside the current one
  progress.observe(ok_row("b", 1, "b1"));
  StageObservation other = ok_row("a", 1, "b1");
  other.problem = "sgemm-256";
  progress.observe(other);
  EXPECT_FALSE(progress.maybe_advance(1.0));
}

TEST(Advancement, LastStageNeverAdvances) {
  LadderConfig config = ladder_with_rule(R"({"type": "max_candidates", "window": 1})");
  ProblemProgress progress(config, "dgemm-256");
  for (const char *stage : {"a", "b"}) {
    progress.observe(ok_row(stage, 1, "b1"));
    ASSERT_TRUE(progress.maybe_advance(1.0));
  }
  EXPECT_EQ(progress.current_stage(), "c");
  for (int i = 0; i < 5; ++i) progress.observe(ok_row("c", 1, "b2"));
  EXPECT_FALSE(progress.maybe_advance(2.0));
  EXPECT_EQ(progress.current_stage(), "c");
}

TEST(Advancement, SkipsUnsupportedStageWithReason) {
  LadderConfig config = ladder_with_rule(R"({"type": "max_candidates", "window": 1})");
  ProblemProgress progress(config, "dgemm-256", {{"b", "stage b requires avx512, which this host does not support"}});
  progress.observe(ok_row("a", 1, "b1"));
  std::optional<StageEvent> first = progress.maybe_advance(5.0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->to, "b");
  EXPECT_EQ(first->rule, "max_candidates");
  std::optional<StageEvent> skip = progress.maybe_advance(5.0);
  ASSERT_TRUE(skip);
  EXPECT_EQ(*skip, (StageEvent{"dgemm-256", "b", "c", "unsupported_stage",
                               "stage b requires avx512, which this host does not support", 5.0}));
  EXPECT_EQ(progress.current_stage(), "c");
  EXPECT_FALSE(progress.maybe_advance(6.0));
}

TEST(Advancement, UnsupportedLastStagesStopTheLadderEarlier) {
  // The default ladder on a host without AVX-512: avx512 and blocking both unsupported.
  LadderConfig config = load_ladder_config(HPCREWARD_DEFAULT_LADDER);
  ProblemProgress progress(config, "dgemm-256", unsupported_stages(config, false));
  for (const char *stage : {"o0", "o3"}) {
    for (int i = 0; i < 800; ++i) progress.observe(ok_row(stage, 1, "b" + std::to_string(i)));
    ASSERT_TRUE(progress.maybe_advance(1.0)) << stage;
  }
  EXPECT_EQ(progress.current_stage(), "openmp");
  for (int i = 0; i < 800; ++i) progress.observe(ok_row("openmp", 1, "c" + std::to_string(i)));
  EXPECT_FALSE(progress.maybe_advance(2.0));  // openmp is the last stage this host can run
}

TEST(Advancement, FirstFiringRuleInConfigOrderIsLogged) {
  LadderConfig config = parse_ladder_config(R"({"ladder": ["a", "b"], "stages": [
    {"name": "a", "flags": ["-O0"], "advance": [{"type": "best_gflops", "threshold": 1},
                                                {"type": "max_candidates", "window": 1}]},
    {"name": "b", "flags": ["-O3"]}]})", "test");
  ProblemProgress progress(config, "dgemm-256");
  progress.observe(ok_row("a", 2, "b1"));
  EXPECT_EQ(progress.maybe_advance(1.0)->rule, "best_gflops");
}

TEST(Advancement, RebuildFromLogEqualsLiveState) {
  LadderConfig config = load_ladder_config(HPCREWARD_DEFAULT_LADDER);
  std::vector<UnsupportedStage> unsupported = unsupported_stages(config, false);
  ProblemProgress live(config, "dgemm-256", unsupported);
  ProgressHistory log;
  auto feed = [&](const StageObservation &observation) {
    live.observe(observation);
    log.push_back(observation);
    while (std::optional<StageEvent> event = live.maybe_advance(1.0)) log.push_back(*event);
  };
  // o0 advances on success rate (16 ok of the last 20), o3 on a plateau, then openmp runs.
  for (int i = 0; i < 25; ++i)
    feed(i % 5 == 0 ? failed_row("o0", "a" + std::to_string(i)) : ok_row("o0", 1, "a" + std::to_string(i)));
  ASSERT_EQ(live.current_stage(), "o3");
  for (int i = 0; i < 25; ++i) feed(ok_row("o3", i < 3 ? i + 1 : 2, "b" + std::to_string(i)));
  ASSERT_EQ(live.current_stage(), "openmp");
  for (int i = 0; i < 7; ++i) feed(ok_row("openmp", 5 + i % 3, "c" + std::to_string(i / 2), 100));
  StageObservation other = ok_row("o3", 1, "x");
  other.problem = "sgemm-256";
  feed(other);

  ProblemProgress rebuilt = ProblemProgress::rebuild(config, "dgemm-256", unsupported, log);
  EXPECT_EQ(rebuilt, live);
  EXPECT_EQ(rebuilt.current_stage(), "openmp");
  EXPECT_EQ(rebuilt.stats().candidates, 7u);
}

TEST(Advancement, RebuildRejectsEventsOutsideTheLadder) {
  LadderConfig config = load_ladder_config(HPCREWARD_DEFAULT_LADDER);
  ProgressHistory log{StageEvent{"dgemm-256", "o0", "o7", "plateau", "", 1.0}};
  EXPECT_THROW(ProblemProgress::rebuild(config, "dgemm-256", {}, log), std::invalid_argument);
}

StageObservation cuda_row(const std::string &stage, double gflops, const std::string &batch,
                          std::optional<double> cublas = {}) {
  return {"cuda-sgemm-4096", stage, Status::ok, gflops, gflops, batch, cublas};
}

TEST(Advancement, CudaProblemsClimbTheCudaLadder) {
  LadderConfig config = load_ladder_config(HPCREWARD_DEFAULT_LADDER);
  // No AVX-512 anywhere: C stages are skipped, CUDA stages are not affected.
  ProblemProgress progress(config, "cuda-sgemm-4096", unsupported_stages(config, false));
  EXPECT_EQ(progress.current_stage(), "cuda-naive");
  for (int i = 0; i < 20; ++i) progress.observe(cuda_row("cuda-naive", 100, "n" + std::to_string(i)));
  std::optional<StageEvent> event = progress.maybe_advance(1.0);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->from, "cuda-naive");
  EXPECT_EQ(event->to, "cuda-smem");
  EXPECT_EQ(event->rule, "success_rate");
  progress.observe(cuda_row("cuda-smem", 4000, "s1", 50000));  // 8% of cuBLAS: not yet
  EXPECT_FALSE(progress.maybe_advance(2.0));
  progress.observe(cuda_row("cuda-smem", 5000, "s2", 50000));
  event = progress.maybe_advance(3.0);
  ASSERT_TRUE(event);
  EXPECT_EQ(*event, (StageEvent{"cuda-sgemm-4096", "cuda-smem", "cuda-tensor", "best_fraction_of_blas",
                                "best 0.1 of cuBLAS >= 0.1", 3.0}));
  progress.observe(cuda_row("cuda-tensor", 20000, "t1", 50000));
  EXPECT_EQ(progress.maybe_advance(4.0)->to, "cuda-async");
  progress.observe(cuda_row("cuda-async", 20000, "a1", 50000));
  EXPECT_FALSE(progress.maybe_advance(5.0));
  progress.observe(cuda_row("cuda-async", 25000, "a2", 50000));
  EXPECT_EQ(progress.maybe_advance(6.0)->to, "cuda-hopper");
  progress.observe(cuda_row("cuda-hopper", 45000, "h1", 50000));
  EXPECT_FALSE(progress.maybe_advance(7.0)) << "the last stage never advances";
}

TEST(Advancement, OffHopperTheCudaLadderEndsAtCudaAsync) {
  LadderConfig config = load_ladder_config(HPCREWARD_DEFAULT_LADDER);
  RankSupport ampere;
  ampere.gpu_without_hopper = "GPU rank 3 (node7, sm_80)";
  ProblemProgress progress(config, "cuda-sgemm-4096", unsupported_stages(config, ampere));
  for (const char *stage : {"cuda-naive", "cuda-smem", "cuda-tensor"}) {
    for (int i = 0; i < 240; ++i) progress.observe(cuda_row(stage, 100, std::string(stage) + std::to_string(i)));
    ASSERT_TRUE(progress.maybe_advance(1.0)) << stage;
  }
  EXPECT_EQ(progress.current_stage(), "cuda-async");
  for (int i = 0; i < 240; ++i) progress.observe(cuda_row("cuda-async", 100, "a" + std::to_string(i)));
  EXPECT_FALSE(progress.maybe_advance(2.0)) << "cuda-hopper is skipped: cuda-async is the last it can run";
}

TEST(Advancement, CudaProblemWithoutCudaLadderIsAConfigError) {
  LadderConfig config = ladder_with_rule(R"({"type": "max_candidates", "window": 1})");
  try {
    ProblemProgress progress(config, "cuda-dgemm-1024");
    FAIL() << "a CUDA problem got a stage without a cuda_ladder";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("cuda-dgemm-1024 is a CUDA problem and the stage ladder has no "
                                             "\"cuda_ladder\""),
              std::string::npos)
        << error.what();
  }
}

TEST(Advancement, RebuildFollowsTheCudaLadder) {
  LadderConfig config = load_ladder_config(HPCREWARD_DEFAULT_LADDER);
  ProgressHistory log{StageEvent{"cuda-hgemm-8192", "cuda-naive", "cuda-smem", "max_candidates", "", 1.0},
                      StageEvent{"cuda-hgemm-8192", "cuda-smem", "cuda-tensor", "plateau", "", 2.0}};
  ProblemProgress rebuilt = ProblemProgress::rebuild(config, "cuda-hgemm-8192", {}, log);
  EXPECT_EQ(rebuilt.current_stage(), "cuda-tensor");
  EXPECT_EQ(rebuilt.current_index(), 2u);
  // A C stage is not on a CUDA problem's ladder.
  ProgressHistory wrong{StageEvent{"cuda-hgemm-8192", "cuda-naive", "o3", "plateau", "", 1.0}};
  EXPECT_THROW(ProblemProgress::rebuild(config, "cuda-hgemm-8192", {}, wrong), std::invalid_argument);
}

}  // namespace
}  // namespace hpcreward
