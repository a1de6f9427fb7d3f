// The coordinator's stage and archive state, beyond what scoring_run_test drives.
#include "coordinator/rewards/sqd_state.hpp"

#include <gtest/gtest.h>

#include "stages/builtin_ladder.hpp"

namespace hpcreward {
namespace {

const LadderConfig &default_ladder() {
  static const LadderConfig config = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  return config;
}

TEST(SqdState, RowDescriptorsReadBackAsTheSummaryTheyCameFrom) {
  RewardRow row;
  row.techniques = "openmp+avx512";
  row.loop_order = "ikj";
  row.tile_sizes = "64x128";
  const TechniqueSummary summary = summary_from_row(row);
  EXPECT_TRUE(summary.detected);
  EXPECT_EQ(summary.techniques, (std::vector<std::string>{"openmp", "avx512"}));
  EXPECT_EQ(summary.tile_sizes, (std::vector<int>{64, 128}));
  row.techniques = "plain";
  row.tile_sizes = "";
  EXPECT_TRUE(summary_from_row(row).techniques.empty());
  row.techniques = "";
  EXPECT_FALSE(summary_from_row(row).detected) << "rows from before detection ran";
}

TEST(SqdState, NamedStagesTheHostCannotRunHaveAReason) {
  SqdState without(default_ladder(), /*host_has_avx512=*/false);
  EXPECT_TRUE(without.unsupported_reason("avx512"));
  EXPECT_TRUE(without.unsupported_reason("blocking")) << "it compiles with -mavx512f";
  EXPECT_FALSE(without.unsupported_reason("open")) << "-march=native is whatever the host has";
  EXPECT_FALSE(without.unsupported_reason("o3"));
  EXPECT_EQ(without.unsupported().size(), 2u);
  SqdState with(default_ladder(), true);
  EXPECT_FALSE(with.unsupported_reason("avx512"));
  EXPECT_TRUE(with.unsupported().empty());
}

TEST(SqdState, ACuteStageIsRefusedWhenAGpuRankHasNoCute) {
  SqdState with(default_ladder(), true);
  EXPECT_FALSE(with.unsupported_reason("cuda-cute"));
  RankSupport support;
  support.gpu_without_cute = "GPU rank 2 (n2)";
  SqdState state(default_ladder(), support);
  const std::optional<std::string> reason = state.unsupported_reason("cuda-cute");
  ASSERT_TRUE(reason);
  EXPECT_TRUE(reason->starts_with("stage cuda-cute allows CuTe, and GPU rank 2 (n2) has no CuTe headers (run "
                                  "jobs/install-deps.sh"))
      << *reason;
  EXPECT_TRUE(state.unsupported_reason("cuda-cutlass"));
  EXPECT_FALSE(state.unsupported_reason("cuda-open"));
  ASSERT_EQ(state.unsupported().size(), 1u);
  EXPECT_EQ(state.unsupported()[0].stage, "cuda-hopper") << "the ladder's CuTe stage is skipped";
}

TEST(SqdState, AnFp64ProblemSkipsTheHopperStageAndAnFp32OneClimbsIt) {
  SqdState state(default_ladder(), true);
  EXPECT_TRUE(state.unsupported().empty());
  auto skips_hopper = [&](const std::string &problem) {
    std::vector<StageEvent> events;
    for (int round = 0; round < 6 && state.current_stage(problem) != "cuda-async"; ++round) {
      for (int i = 0; i < 240; ++i) {
        RewardRow row;
        row.problem = problem;
        row.stage = state.current_stage(problem);
        row.status = "ok";
        row.gflops = 1;
        row.candidate_id = problem + std::to_string(round) + "-" + std::to_string(i);
        row.batch_id = row.candidate_id;
        state.observe(row, std::nullopt);
      }
      state.advance({problem}, round);
    }
    EXPECT_EQ(state.current_stage(problem), "cuda-async") << problem;
    for (int i = 0; i < 240; ++i) {
      RewardRow row;
      row.problem = problem;
      row.stage = "cuda-async";
      row.status = "ok";
      row.gflops = 1;
      row.candidate_id = row.batch_id = problem + "-a" + std::to_string(i);
      state.observe(row, std::nullopt);
    }
    state.advance({problem}, 10);
    return state.current_stage(problem) != "cuda-hopper";
  };
  EXPECT_TRUE(skips_hopper("cuda-dgemm-1024"));
  EXPECT_FALSE(skips_hopper("cuda-sgemm-1024"));
}

TEST(SqdState, NewProblemsStartAtTheFirstStage) {
  SqdState state(default_ladder(), true);
  EXPECT_EQ(state.current_stage("dgemm-512"), "o0");
  EXPECT_TRUE(state.advance({"dgemm-512", "not-a-problem"}, 1.0).empty());
  EXPECT_EQ(state.stages().size(), 1u);
}

TEST(SqdState, OnlyVerifiedDetectedRowsEnterTheArchive) {
  SqdState state(default_ladder(), true);
  RewardRow row;
  row.candidate_id = "a";
  row.problem = "dgemm-256";
  row.stage = "o3";
  row.status = "wrong_answer";
  row.gflops = 0;
  TechniqueSummary plain{true, {}, "ikj", {}, ""};
  EXPECT_FALSE(state.update_archive(row, plain, 0, 1).record);
  row.status = "ok";
  row.gflops = 4;
  EXPECT_FALSE(state.update_archive(row, TechniqueSummary{}, 1, 1).record) << "detection did not run";
  ArchiveOutcome outcome = state.update_archive(row, plain, 2, 1);
  ASSERT_TRUE(outcome.record);
  EXPECT_EQ(outcome.change, "new_niche");
  EXPECT_EQ(outcome.record->niche, "plain|ikj|-");
  EXPECT_EQ(outcome.record->row_index, 2u);
}

TEST(SqdState, ALogRowIsObservedWithItsStatus) {
  RewardRow row;
  row.problem = "dgemm-256";
  row.stage = "o0";
  row.status = "timeout";
  row.batch_id = "z";
  const StageObservation from_row = observation_from_row(row, 12.5);
  EXPECT_EQ(from_row.status, Status::timeout);
  EXPECT_EQ(from_row.batch_id, "z");
  EXPECT_EQ(from_row.blas_gflops, std::optional<double>(12.5));
  EXPECT_FALSE(from_row.yardstick_gflops) << "a row whose rank measured no yardstick";
  row.cublas_gflops = 700;
  row.cublaslt_gflops = 750;
  EXPECT_EQ(observation_from_row(row).yardstick_gflops, std::optional<double>(750)) << "the best of them";
  row.status = "bogus";
  EXPECT_THROW(observation_from_row(row), std::invalid_argument);
}

RewardRow ok_row(const std::string &id, double gflops, double cv, char source) {
  RewardRow row;
  row.candidate_id = id;
  row.problem = "dgemm-256";
  row.stage = "o3";
  row.status = "ok";
  row.gflops = gflops;
  row.cv = cv;
  row.source_sha256 = std::string(64, source);
  row.techniques = "plain";
  row.loop_order = "ikj";
  return row;
}

TEST(SqdState, AResumeReplaysTheMarginAndTheSourcesSoNothingIsPaidTwice) {
  LadderConfig config = default_ladder();
  config.shaping = {true, 5.0, 2.0};
  // Live: a kernel, its re-timing (noise), the same kernel re-sent and timed faster, a rival.
  const std::vector<RewardRow> rows = {ok_row("a", 18.44, 0.002, 'a'), ok_row("b", 18.45, 0.002, 'b'),
                                       ok_row("c", 25, 0.002, 'a'), ok_row("d", 30, 0.002, 'd')};
  SqdState live(config, true);
  std::vector<ArchiveRecord> logged;
  std::vector<double> bonuses;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ArchiveOutcome outcome = live.update_archive(rows[i], summary_from_row(rows[i]), i, 1);
    bonuses.push_back(outcome.bonus);
    if (outcome.record) logged.push_back(*outcome.record);
  }
  EXPECT_EQ(bonuses, (std::vector<double>{5.0, 0, 0, 2.0}));
  ASSERT_EQ(logged.size(), 3u) << "b changed nothing";

  std::vector<ArchiveRecord> missing;
  SqdState resumed = SqdState::rebuild(config, true, rows, {}, logged, [](const RewardRow &) {
    return std::optional<double>();
  }, missing);
  EXPECT_EQ(resumed.archive(), live.archive());
  EXPECT_TRUE(missing.empty()) << "every record was logged: none is written again";
  // After the resume, the twin re-sent once more earns nothing, as it would have live.
  RewardRow again = ok_row("e", 40, 0.002, 'a');
  EXPECT_EQ(resumed.update_archive(again, summary_from_row(again), rows.size(), 2).bonus, 0);
  EXPECT_EQ(live.update_archive(again, summary_from_row(again), rows.size(), 2).bonus, 0);
}

}  // namespace
}  // namespace hpcreward
