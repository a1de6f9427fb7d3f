// OUT/coordinator.outcome.json: what the job script reads to learn how the coordinator ended.
#include "coordinator/run/run_outcome.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "common/node_name.hpp"

namespace hpcreward {
namespace {

std::filesystem::path fresh_directory(const std::string &name) {
  const auto dir = std::filesystem::temp_directory_path() / ("hpcreward_outcome_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

nlohmann::json read_json(const std::filesystem::path &path) {
  std::ifstream file(path);
  return nlohmann::json::parse(file);
}

TEST(RunOutcome, NamesEachExitCode) {
  EXPECT_STREQ(outcome_name(kExitComplete), "complete");
  EXPECT_STREQ(outcome_name(kExitError), "error");
  EXPECT_STREQ(outcome_name(kExitConfigError), "config_error");
  EXPECT_STREQ(outcome_name(kExitNoRanks), "no_ranks");
  EXPECT_STREQ(outcome_name(kExitStopped), "stopped");
  EXPECT_EQ(kExitStopped, 75);
  EXPECT_EQ(kExitNoRanks, 3);
}

TEST(RunOutcome, FileHasEveryFieldAndReplacesAStaleOneAtomically) {
  const auto dir = fresh_directory("fields") / "run";  // created by the write
  RunOutcome outcome;
  outcome.exit_code = kExitNoRanks;
  outcome.message = "no cpu benchmark rank is left";
  outcome.rows_in_log = 12;
  outcome.rows_written = 7;
  outcome.lost_ranks.push_back({1700000000.5, 2, "node2", "quarantined", "no answer for 75 s"});
  std::filesystem::create_directories(dir);
  std::ofstream(dir / kOutcomeFileName) << "stale";
  ASSERT_EQ(write_outcome_file(dir, outcome), "");
  const nlohmann::json written = read_json(dir / kOutcomeFileName);
  EXPECT_EQ(written["exit_code"], 3);
  EXPECT_EQ(written["outcome"], "no_ranks");
  EXPECT_EQ(written["message"], "no cpu benchmark rank is left");
  EXPECT_EQ(written["rows_in_log"], 12);
  EXPECT_EQ(written["rows_written"], 7);
  ASSERT_EQ(written["lost_ranks"].size(), 1u);
  EXPECT_EQ(written["lost_ranks"][0]["rank"], 2);
  EXPECT_EQ(written["lost_ranks"][0]["host"], "node2");
  EXPECT_EQ(written["lost_ranks"][0]["time"], 1700000000.5);
  EXPECT_EQ(written["lost_ranks"][0]["reason"], "no answer for 75 s");
  EXPECT_GT(written["time"].get<double>(), 1.6e9);
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().filename(), kOutcomeFileName) << "no temporary file is left behind";
  remove_outcome_file(dir);
  EXPECT_FALSE(std::filesystem::exists(dir / kOutcomeFileName));
  remove_outcome_file(dir);  // quiet when there is none
  std::filesystem::remove_all(dir.parent_path());
}

TEST(RunOutcome, InvalidUtf8InTheMessageStillWrites) {
  const auto dir = fresh_directory("utf8");
  RunOutcome outcome;
  outcome.exit_code = kExitError;
  outcome.message = "compiler said \xff\xfe";
  ASSERT_EQ(write_outcome_file(dir, outcome), "");
  EXPECT_EQ(read_json(dir / kOutcomeFileName)["outcome"], "error");
  std::filesystem::remove_all(dir);
}

TEST(RunOutcome, SaysWhyItCannotWrite) {
  RunOutcome outcome;
  EXPECT_NE(write_outcome_file("/proc/hpcreward-no-such-dir", outcome), "");
}

TEST(RunOutcome, TheMessageSaysHowScoringEnded) {
  RunOutcome outcome;
  EXPECT_EQ(conclude(outcome, {}), kExitComplete);
  EXPECT_EQ(outcome.message, "every candidate has a row");

  ScoringEnd stopped_file;
  stopped_file.stopped = true;
  stopped_file.signal = "SIGUSR1";
  stopped_file.to_score = 10;
  outcome.rows_written = 7;
  EXPECT_EQ(conclude(outcome, stopped_file), kExitStopped);
  EXPECT_EQ(outcome.message, "stopped by SIGUSR1 before the end: 3 of 10 candidates to score have no row; requeue "
                             "the job or rerun with --resume");

  ScoringEnd served;
  served.serve = true;
  served.signal = "SIGTERM";
  served.batches = 4;
  EXPECT_EQ(conclude(outcome, served), kExitComplete);
  EXPECT_EQ(outcome.message, "serve mode stopped by SIGTERM: 4 batches answered");
  served.stopped = true;
  served.signal = "SIGUSR1";
  EXPECT_EQ(conclude(outcome, served), kExitStopped);
  EXPECT_NE(outcome.message.find("for a requeue: batches not done were failed with \"retry\""), std::string::npos);
}

TEST(RunOutcome, MpiFinalizeIsAvoidedOnlyWhenARankWouldHoldItUp) {
  RunOutcome outcome;
  outcome.exit_code = kExitStopped;
  EXPECT_EQ(finalize_blocker(outcome), "") << "a stop whose grace covered every task";
  outcome.unanswered_at_stop = 2;
  EXPECT_NE(finalize_blocker(outcome).find("still busy with 2 task(s)"), std::string::npos);
  outcome.exit_code = kExitComplete;
  outcome.unanswered_at_stop = 0;
  outcome.lost_ranks.push_back({1, 2, "node2", "quarantined", "silent"});
  outcome.lost_ranks.push_back({1, 5, "node5", "quarantined", "silent"});
  EXPECT_EQ(finalize_blocker(outcome), "MPI_Finalize would wait forever for quarantined ranks 2, 5");
}

TEST(NodeName, IsTheSlurmNodeNameWhenSet) {
  const char *before = std::getenv("SLURMD_NODENAME");
  const std::string saved = before ? before : "";
  setenv("SLURMD_NODENAME", "cn042", 1);
  EXPECT_EQ(node_name(), "cn042");
  setenv("SLURMD_NODENAME", "", 1);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(node_name(), host) << "empty: the host name";
  unsetenv("SLURMD_NODENAME");
  EXPECT_EQ(node_name(), host);
  if (before) setenv("SLURMD_NODENAME", saved.c_str(), 1);
}

}  // namespace
}  // namespace hpcreward
