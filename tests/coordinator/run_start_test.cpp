// The start of a run (run_start.hpp): each refusal with what to change, and what the run
// takes from its ranks and options.
#include "coordinator/run/run_start.hpp"

#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "fake_world.hpp"
#include "stages/builtin_ladder.hpp"

namespace hpcreward {
namespace {

class RunStartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = std::filesystem::temp_directory_path() /
           ("hpcreward-run-start-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(out_);
  }
  void TearDown() override { std::filesystem::remove_all(out_); }
  std::filesystem::path out_;
};

RankInfo rank(int number, std::string kind, bool avx512 = false) {
  RankInfo info;
  info.rank = number;
  info.host = "node" + std::to_string(number);
  info.kind = std::move(kind);
  info.avx512 = avx512;
  return info;
}

TEST_F(RunStartTest, ANewRunNeedsNoLogAndAResumedOneNeedsOne) {
  CoordinatorOptions options;
  options.out = out_;
  EXPECT_EQ(checked_log_path(options), out_ / "rewards.h5");
  options.resume = true;
  try {
    checked_log_path(options);
    FAIL() << "--resume without a log";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("start without --resume"), std::string::npos) << error.what();
  }
  std::ofstream(out_ / "rewards.h5") << "x";
  EXPECT_EQ(checked_log_path(options), out_ / "rewards.h5");
  options.resume = false;
  try {
    checked_log_path(options);
    FAIL() << "a log already there";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("add --resume"), std::string::npos) << error.what();
  }
}

TEST(RunStart, RanksOfUnknownKindAndUnpenalizedNullRanksAreRefused) {
  RewardTable rewards;
  EXPECT_EQ(check_ranks({rank(1, "cpu"), rank(2, "gpu")}, rewards), 0u);
  EXPECT_THROW(check_ranks({rank(1, "tpu")}, rewards), std::runtime_error);
  RankInfo null_rank = rank(1, "cpu");
  null_rank.null_measurement = true;
  rewards.set_penalty(Status::runtime_error, 0);
  try {
    check_ranks({null_rank, rank(2, "cpu")}, rewards);
    FAIL() << "a null rank whose runtime_error costs nothing";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("--reward.runtime_error"), std::string::npos) << error.what();
  }
  rewards.set_penalty(Status::runtime_error, -1);
  EXPECT_EQ(check_ranks({null_rank, rank(2, "cpu")}, rewards), 1u);
}

TEST(RunStart, OnlyCpuRanksDecideAboutAvx512) {
  EXPECT_TRUE(rank_support({rank(1, "cpu", true), rank(2, "gpu", false)}).avx512);
  EXPECT_FALSE(rank_support({rank(1, "cpu", true), rank(2, "cpu", false)}).avx512);
  EXPECT_TRUE(rank_support({rank(1, "gpu", false)}).avx512) << "no CPU rank: nothing to run C on";
}

TEST(RunStart, OnlyGpuRanksDecideAboutHopper) {
  RankInfo hopper = rank(2, "gpu");
  hopper.gpu.arch = "sm_90a";
  RankInfo ampere = rank(3, "gpu");
  ampere.host = "node7";
  ampere.gpu.arch = "sm_80";
  EXPECT_EQ(rank_support({rank(1, "cpu"), hopper}).gpu_without_hopper, "");
  EXPECT_EQ(rank_support({rank(1, "cpu")}).gpu_without_hopper, "") << "no GPU rank: nothing to run CUDA on";
  EXPECT_EQ(rank_support({hopper, ampere}).gpu_without_hopper, "GPU rank 3 (node7, sm_80)");
  RankInfo blackwell = ampere;
  blackwell.gpu.arch = "sm_100";  // TMA, but no wgmma
  EXPECT_EQ(rank_support({blackwell}).gpu_without_hopper, "GPU rank 3 (node7, sm_100)");
}

TEST(RunStart, ACudaStageThatNeedsAHopperIsSkippedWhateverThePolicy) {
  LadderConfig ladder = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  ladder.avx512_unsupported = UnsupportedPolicy::refuse;
  RankSupport support;
  support.gpu_without_hopper = "GPU rank 3 (node7, sm_80)";
  const std::vector<std::string> notes = host_support_notes(SqdState(ladder, support));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes.front(),
            "note: stage cuda-hopper requires Hopper's wgmma or TMA (sm_90a), which GPU rank 3 (node7, sm_80) "
            "cannot run; CUDA problems skip it (their ladder ends before it)");
}

TEST(RunStart, TheScoringContextCarriesTheRanksAndTheScoringOptions) {
  CoordinatorOptions options;
  options.seed = 42;
  options.rank_deadline_margin_s = 7;
  options.stop_grace_s = 9;
  options.repeat_cache_entries = 0;
  const ScoringContext context = scoring_context(options, {rank(1, "cpu"), rank(3, "gpu")}, "head");
  EXPECT_EQ(context.ranks, (std::vector<int>{1, 3}));
  EXPECT_EQ(context.rank_info.at(3).kind, "gpu");
  EXPECT_EQ(context.host, "head");
  EXPECT_EQ(context.seed, 42u);
  EXPECT_EQ(context.rank_deadline_margin_s, 7);
  EXPECT_EQ(context.stop_grace_s, 9);
  EXPECT_EQ(context.repeat_cache_entries, 0u);
}

TEST(RunStart, CandidateDefaultsComeFromTheOptionsAndTheLadder) {
  CoordinatorOptions options;
  options.problem = "sgemm-512";
  options.stage = "o3";
  options.batch_id = "run7";
  options.max_source_bytes = 100;
  options.ladder = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  const CandidateDefaults defaults = candidate_defaults(options);
  EXPECT_EQ(defaults.problem, "sgemm-512");
  EXPECT_EQ(defaults.stage, "o3");
  EXPECT_EQ(defaults.batch_id, "run7");
  EXPECT_EQ(defaults.max_source_bytes, 100u);
  ASSERT_EQ(defaults.known_stages.size(), options.ladder.stages.size());
  EXPECT_EQ(defaults.known_stages.front().name, options.ladder.stages.front().name);
}

TEST(RunStart, AProblemNoRankCanScoreIsRefusedUnlessTheLogHoldsItsRows) {
  CoordinatorOptions options;
  options.ladder = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  const RunCapabilities cpu_only = run_capabilities({rank(1, "cpu")}, &options.ladder, "built-in");
  PreparedCandidate cuda;
  cuda.id = "g0";
  cuda.problem = "cuda-sgemm-4096";
  EXPECT_THROW(refuse_unscorable(options, {cuda}, {}, cpu_only), std::invalid_argument);
  RewardRow logged;
  logged.candidate_id = "g0";
  EXPECT_NO_THROW(refuse_unscorable(options, {cuda}, {logged}, cpu_only)) << "nothing of it is left to score";

  options.serve = true;
  options.problem = "cuda-sgemm-4096";
  EXPECT_THROW(refuse_unscorable(options, {}, {}, cpu_only), std::invalid_argument) << "serve mode's --problem";
  options.problem = "dgemm-256";
  EXPECT_NO_THROW(refuse_unscorable(options, {}, {}, cpu_only));
}

TEST(RunStart, AStageTheHostCannotRunIsANoteOrUnderRefuseTheEndOfTheRun) {
  LadderConfig ladder = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  const SqdState with_avx512(ladder, true);
  EXPECT_TRUE(host_support_notes(with_avx512).empty());
  const SqdState without(ladder, false);
  const std::vector<std::string> notes = host_support_notes(without);
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.front().find("problems skip it (avx512_unsupported: skip)"), std::string::npos) << notes.front();
  ladder.avx512_unsupported = UnsupportedPolicy::refuse;
  EXPECT_THROW(host_support_notes(SqdState(ladder, false)), std::runtime_error);
}

TEST(RunStart, TheRanksHellosAreGatheredAndChecked) {
  test_support::FakeWorld world(2);
  world.hellos[1].avx512 = false;
  world.hellos[1].null_measurement = true;
  CoordinatorOptions options;
  options.rewards.set_penalty(Status::runtime_error, -1);
  options.ladder = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  const StartedRanks started = start_ranks(world, options);
  EXPECT_EQ(started.ranks.size(), 2u);
  EXPECT_EQ(started.null_ranks, 1u);
  EXPECT_FALSE(started.support.avx512);
  EXPECT_EQ(started.capabilities.ranks_by_kind.at("cpu"), 2u);
  world.hellos[0].kind = "tpu";
  EXPECT_THROW(start_ranks(world, options), std::runtime_error);
}

}  // namespace
}  // namespace hpcreward
