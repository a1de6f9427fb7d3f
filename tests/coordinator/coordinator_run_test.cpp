// A whole coordinator run in file mode (coordinator_run.hpp) without MPI: the fake world's
// ranks answer at once, the log is a real HDF5 file in a temporary directory. What the phases
// do together: a new log, a resume that scores exactly the rest with the logged seed, a
// refusal before the log exists, and how errors become the outcome.
#include "coordinator/run/coordinator_run.hpp"

#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "coordinator/ranks/rank_quarantine.hpp"
#include "coordinator/scoring/scoring_run.hpp"
#include "fake_world.hpp"
#include "results/reward_log.hpp"

namespace hpcreward {
namespace {

using test_support::FakeWorld;

constexpr const char *kSource = "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {}";

class CoordinatorRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hpcreward-coordinator-run-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    console_file_ = std::tmpfile();
  }
  void TearDown() override {
    std::fclose(console_file_);
    std::filesystem::remove_all(dir_);
  }

  // A candidate file of these ids (problem `problem`), and the options of a run over it.
  CoordinatorOptions options_for(const std::vector<std::string> &ids, bool resume = false,
                                 const std::string &problem = "dgemm-256") {
    const std::filesystem::path candidates = dir_ / "candidates.jsonl";
    std::ofstream file(candidates);
    for (const std::string &id : ids)
      file << R"({"id": ")" << id << R"(", "problem": ")" << problem << R"(", "source": ")" << kSource << " /* " << id
           << " */\"}\n";  // each its own code: identical ones would share a measurement
    file.close();
    const std::string out = (dir_ / "out").string();
    std::vector<const char *> arguments = {"hpcreward-coordinator", "--candidates", candidates.c_str(), "--out",
                                           out.c_str(), "--seed", resume ? "9" : "5"};
    if (resume) arguments.push_back("--resume");
    std::optional<CoordinatorOptions> options =
        parse_coordinator_options(static_cast<int>(arguments.size()), arguments.data());
    EXPECT_TRUE(options);
    return *options;
  }
  std::string console_text() {
    std::fflush(console_file_);
    std::rewind(console_file_);
    std::string text;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, console_file_)) text.append(buffer, n);
    return text;
  }
  std::filesystem::path log_path() const { return dir_ / "out" / "rewards.h5"; }

  std::filesystem::path dir_;
  std::FILE *console_file_ = nullptr;
};

TEST_F(CoordinatorRunTest, AFileRunScoresEveryCandidateIntoANewLog) {
  FakeWorld world(2);
  Console console(console_file_);
  RunOutcome outcome;
  EXPECT_EQ(run_coordinator(options_for({"c0", "c1", "c2"}), world, console, outcome), kExitComplete);
  EXPECT_EQ(outcome.message, "every candidate has a row");
  EXPECT_EQ(outcome.rows_written, 3u);
  EXPECT_EQ(outcome.rows_in_log, 3u);
  EXPECT_EQ(world.stops, 1) << "the ranks are told to stop";
  EXPECT_EQ(read_rewards(log_path()).size(), 3u);
  EXPECT_EQ(read_provenance(log_path()).seed, "5");
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out" / "coordinator.pid"));
  const std::string text = console_text();
  EXPECT_NE(text.find("hpcreward: scoring 3 candidates on 2 benchmark ranks (2 CPU)"), std::string::npos) << text;
  EXPECT_NE(text.find("[3/3] c"), std::string::npos) << text;
  EXPECT_NE(text.find("(3 rows, 3 written now)"), std::string::npos) << text;
}

TEST_F(CoordinatorRunTest, AResumeScoresExactlyTheRestWithTheLoggedSeed) {
  {
    FakeWorld world(2);
    Console console(console_file_);
    RunOutcome outcome;
    ASSERT_EQ(run_coordinator(options_for({"c0", "c1"}), world, console, outcome), kExitComplete);
  }
  FakeWorld world(2);
  Console console(console_file_);
  RunOutcome outcome;
  EXPECT_EQ(run_coordinator(options_for({"c0", "c1", "c2"}, /*resume=*/true), world, console, outcome), kExitComplete);
  EXPECT_EQ(outcome.rows_written, 1u);
  EXPECT_EQ(outcome.rows_in_log, 3u);
  ASSERT_EQ(world.fake.sent.size(), 1u) << "only the candidate the log lacks is sent";
  EXPECT_EQ(world.fake.sent[0].candidate_id, "c2");
  EXPECT_EQ(world.fake.sent[0].seed, candidate_seed(5, 2)) << "the logged run's seed, not --seed 9";
  EXPECT_EQ(read_rewards(log_path()).size(), 3u);
  EXPECT_NE(console_text().find("resume: the log holds 2 rows"), std::string::npos);
}

TEST_F(CoordinatorRunTest, AProblemNoRankCanScoreIsRefusedBeforeTheLogExists) {
  FakeWorld world(2);  // CPU ranks only
  Console console(console_file_);
  RunOutcome outcome;
  EXPECT_THROW(run_coordinator(options_for({"c0"}, false, "cuda-sgemm-4096"), world, console, outcome),
               std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(log_path()));
  EXPECT_TRUE(world.fake.sent.empty());
}

TEST_F(CoordinatorRunTest, ARunWithoutBenchmarkRanksStopsAtOnce) {
  FakeWorld world(0);
  Console console(console_file_);
  RunOutcome outcome;
  EXPECT_THROW(run_coordinator(options_for({"c0"}), world, console, outcome), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out"));
}

TEST(RunToOutcome, EachKindOfErrorHasItsExitCode) {
  std::FILE *errors = std::tmpfile();
  const auto exit_code_of = [&](const std::function<int()> &run) {
    RunOutcome outcome;
    run_to_outcome(outcome, errors, run);
    return std::make_pair(outcome.exit_code, outcome.message);
  };
  EXPECT_EQ(exit_code_of([] { return static_cast<int>(kExitStopped); }).first, kExitStopped);
  EXPECT_EQ(exit_code_of([]() -> int { throw NoRanksLeft("no cpu rank"); }),
            std::make_pair(static_cast<int>(kExitNoRanks), std::string("no cpu rank")));
  EXPECT_EQ(exit_code_of([]() -> int { throw std::invalid_argument("bad option"); }).first, kExitConfigError);
  EXPECT_EQ(exit_code_of([]() -> int { throw std::runtime_error("HDF5"); }).first, kExitError);
  std::fclose(errors);
}

}  // namespace
}  // namespace hpcreward
