// The run's log at start (run_log.hpp), on real HDF5 files in a temporary directory: a new
// log, a resumed one read back with its seed, and the ladder's state rebuilt from it.
#include "coordinator/run/run_log.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include "coordinator/run/run_report.hpp"
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

namespace hpcreward {
namespace {

// --resume against the catalog the log's rows were scored on (check_resumed_problems).
LoggedRun logged_with(const std::string &problem, const std::string &config_json) {
  LoggedRun logged;
  logged.resumed = true;
  logged.provenance.config_json = config_json;
  logged.rows.push_back(row("c1", "o0"));
  logged.rows.back().problem = problem;
  return logged;
}

std::string refusal(const LoggedRun &logged, const ProblemCatalog &catalog) {
  try {
    check_resumed_problems(logged, catalog);
  } catch (const std::invalid_argument &error) {
    return error.what();
  }
  return "accepted";
}

TEST(ResumedProblems, TheLogsCatalogMustStillDefineItsProblemsTheSameWay) {
  const std::string tall = R"({"id": "tall", "language": "c", "precision": "f64", "shape": "4096x8x64"})";
  const std::string catalog_json = R"({"catalog": "mine", "problems": [)" + tall + "]}";
  const std::string config = R"({"problem_catalog": )" + catalog_json + "}";
  const ProblemCatalog same = parse_problem_catalog(catalog_json, "mine.json");
  EXPECT_EQ(refusal(logged_with("tall", config), same), "accepted");

  const std::string missing = refusal(logged_with("tall", config), load_problem_catalog("default"));
  EXPECT_NE(missing.find("rows of problem tall, which the problem catalog built-in default does not define"),
            std::string::npos)
      << missing;
  EXPECT_NE(missing.find("(mine)"), std::string::npos) << "names the catalog the run began with: " << missing;

  const ProblemCatalog reshaped = parse_problem_catalog(
      R"({"catalog": "mine", "problems": [{"id": "tall", "language": "c", "precision": "f64", "shape": "4096x16x64"}]})",
      "mine.json");
  EXPECT_NE(refusal(logged_with("tall", config), reshaped).find("is not the one the log's rows were scored on"),
            std::string::npos);

  // The accumulation is part of a problem's definition: fp16 accumulation is not fp32's.
  const std::string half = R"({"id": "h", "language": "cuda", "precision": "f16", "shape": "64x64x1024",
                               "accumulation": "f16"})";
  const std::string half_config = R"({"problem_catalog": {"catalog": "mine", "problems": [)" + half + "]}}";
  const ProblemCatalog fp32 = parse_problem_catalog(
      R"({"catalog": "mine", "problems": [{"id": "h", "language": "cuda", "precision": "f16", "shape": "64x64x1024"}]})",
      "mine.json");
  EXPECT_NE(refusal(logged_with("h", half_config), fp32).find("accumulation"), std::string::npos);
  EXPECT_EQ(refusal(logged_with("h", half_config), load_problem_catalog("cuda-l2")).find("accepted"), std::string::npos);

  // A log from before catalogs: its problems are the default catalog's.
  EXPECT_EQ(refusal(logged_with("dgemm-256", R"({"seed": "1"})"), load_problem_catalog("default")), "accepted");
  EXPECT_NE(refusal(logged_with("dgemm-256", R"({"seed": "1"})"), same), "accepted");
  LoggedRun fresh;
  EXPECT_EQ(refusal(fresh, same), "accepted") << "a new run has nothing to check";
}

}  // namespace
}  // namespace hpcreward
