// What the coordinator prints while it scores and what it keeps for the end
// (console_observer.hpp), read back from a temporary file.
#include "coordinator/run/console_observer.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

class ConsoleObserverTest : public ::testing::Test {
 protected:
  void SetUp() override { file_ = std::tmpfile(); }
  void TearDown() override { std::fclose(file_); }
  std::string printed() {
    std::fflush(file_);
    std::rewind(file_);
    std::string text;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, file_)) text.append(buffer, n);
    return text;
  }
  std::FILE *file_ = nullptr;
};

RewardRow row(std::string id, std::string batch = "b1") {
  RewardRow r;
  r.candidate_id = std::move(id);
  r.batch_id = std::move(batch);
  r.problem = "dgemm-256";
  r.stage = "o3";
  r.status = "ok";
  r.gflops = 2;
  return r;
}

TEST_F(ConsoleObserverTest, EachRowIsCountedSummedAndPrinted) {
  Console console(file_);
  RunOutcome outcome;
  outcome.rows_in_log = 5;  // a resumed log's rows
  ConsoleObserver observer(console, outcome, nullptr);
  observer.count_logged({row("old")});
  observer.row_written(row("c0"), 1, 2);
  observer.row_written(row("c1"), 2, 2);
  EXPECT_EQ(outcome.rows_written, 2u);
  EXPECT_EQ(outcome.rows_in_log, 7u);
  EXPECT_EQ(observer.summary().rows(), 3u) << "logged rows count in the summary";
  const std::string text = printed();
  EXPECT_NE(text.find("[1/2] c0"), std::string::npos) << text;
  EXPECT_NE(text.find("[2/2] c1"), std::string::npos) << text;
}

TEST_F(ConsoleObserverTest, ALostRankIsKeptForTheOutcomeAndSaid) {
  Console console(file_);
  RunOutcome outcome;
  ConsoleObserver observer(console, outcome, nullptr);
  const RankEventRecord event{1700000000, 2, "node2", "quarantined", "no answer for 75 s"};
  observer.rank_lost(event);
  observer.note("stopping: no new tasks");
  EXPECT_EQ(outcome.lost_ranks, std::vector<RankEventRecord>{event});
  EXPECT_EQ(printed(), "quarantined: rank 2 on node2: no answer for 75 s\nstopping: no new tasks\n");
}

TEST_F(ConsoleObserverTest, InServeModeTheRegistryHearsOfEachRow) {
  Console console(file_);
  RunOutcome outcome;
  BatchRegistry registry;
  std::vector<PreparedCandidate> candidates(2);
  candidates[0].id = "c0";
  candidates[1].id = "c1";
  registry.submit("b1", "fingerprint", std::move(candidates));
  ASSERT_TRUE(registry.next(std::chrono::seconds(10))) << "queued: taken at once";
  ConsoleObserver observer(console, outcome, &registry);
  observer.row_written(row("c0"), 1, 2);
  EXPECT_EQ(registry.snapshot("b1")->done, 1u);
}

}  // namespace
}  // namespace hpcreward
