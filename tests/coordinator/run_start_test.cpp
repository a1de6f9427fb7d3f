// The start of a run (run_start.hpp): each refusal with what to change, and what the run
// takes from its ranks and options.
#include "coordinator/run_start.hpp"

#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

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
  EXPECT_TRUE(cpu_ranks_have_avx512({rank(1, "cpu", true), rank(2, "gpu", false)}));
  EXPECT_FALSE(cpu_ranks_have_avx512({rank(1, "cpu", true), rank(2, "cpu", false)}));
  EXPECT_TRUE(cpu_ranks_have_avx512({rank(1, "gpu", false)})) << "no CPU rank: nothing to run C on";
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

}  // namespace
}  // namespace hpcreward
