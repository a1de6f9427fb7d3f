// The run's log at start (run_log.hpp), on real HDF5 files in a temporary directory: a new
// log, a resumed one read back with its seed, and the ladder's state rebuilt from it.
#include "coordinator/run_log.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include "coordinator/run_report.hpp"
#include "stages/builtin_ladder.hpp"

namespace hpcreward {
namespace {

class RunLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hpcreward-run-log-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  const LadderConfig ladder_ = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
};

RewardRow row(std::string id, std::string stage) {
  RewardRow r;
  r.candidate_id = std::move(id);
  r.batch_id = "b1";
  r.problem = "dgemm-256";
  r.stage = std::move(stage);
  r.status = "ok";
  r.gflops = 1;
  return r;
}

TEST_F(RunLogTest, ANewRunStartsANewLogAndANewLadder) {
  const LoggedRun nothing;
  std::vector<ArchiveRecord> missing;
  SqdState state = ladder_state(ladder_, true, nothing, {}, missing);
  EXPECT_TRUE(missing.empty());
  EXPECT_EQ(state.current_stage("dgemm-256"), ladder_.ladder.front());
  Provenance provenance;
  provenance.seed = "42";
  open_log_writer(dir_ / "rewards.h5", provenance, {})->flush();
  const LoggedRun logged = read_logged_run(dir_ / "rewards.h5");
  EXPECT_TRUE(logged.resumed);
  EXPECT_TRUE(logged.rows.empty());
  EXPECT_EQ(logged_seed(logged), 42u);
}

TEST_F(RunLogTest, AResumedRunGoesOnWithTheLogsRowsAndState) {
  const std::filesystem::path path = dir_ / "rewards.h5";
  Provenance provenance;
  provenance.seed = "7";
  {
    auto writer = open_log_writer(path, provenance, {});
    writer->append(row("c0", ladder_.ladder.front()), "void matmul(){}");
    writer->append(row("c1", ladder_.ladder.front()), "void matmul(){}");
  }
  const LoggedRun logged = read_logged_run(path);
  ASSERT_EQ(logged.rows.size(), 2u);
  EXPECT_EQ(logged_seed(logged), 7u);
  std::vector<ArchiveRecord> missing;
  const SqdState state = ladder_state(ladder_, true, logged, {}, missing);
  EXPECT_EQ(state.stages().count("dgemm-256"), 1u) << "the logged problem is known to the rebuilt state";
  auto writer = open_log_writer(path, std::nullopt, missing);
  EXPECT_EQ(writer->rows(), 2u) << "reopened, not created";
}

}  // namespace
}  // namespace hpcreward
