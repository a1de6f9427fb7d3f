// score_task end to end through the real sandbox path (SandboxedRunner -> run_child ->
// hpcreward-runner, which installs the seccomp filter before calling the candidate).
#include "bench_node/rank/scorer.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/support/quick_bench_options.hpp"

#include "bench_node/process/work_dir.hpp"

namespace hpcreward {
namespace {

namespace fs = std::filesystem;

std::string candidate(const std::string &name) {
  std::ifstream in(std::string(HPCREWARD_SANDBOX_CANDIDATES_DIR) + "/" + name);
  EXPECT_TRUE(in) << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Problem small_problem() {
  Problem problem;
  problem.id = "test-dgemm-64";
  problem.precision = Precision::f64;
  problem.nominal = {64, 64, 64};
  problem.check_shapes = {{67, 65, 71}, {31, 17, 23}};
  problem.tolerance = 1e-10;
  return problem;
}

const char kSigsysReason[] =
    "forbidden: made a system call the sandbox does not allow (killed by SIGSYS)";

class SandboxedScore : public ::testing::Test {
 protected:
  void SetUp() override {
    options = quick_bench_options(HPCREWARD_RUNNER_PATH, "hpcreward-sandbox-score-test");
    outside = fs::path(::testing::TempDir()) /
              ("hpcreward-sandbox-outside-" + std::to_string(::getpid()));
    fs::create_directories(outside);
  }
  void TearDown() override {
    remove_tree(options.work_root);
    fs::remove_all(outside);
  }

  Measurement score_source(const std::string &name, const std::string &source,
                           std::vector<std::string> flags = {"-O2"}) {
    BenchTask task;
    task.sequence = ++sequence;
    task.candidate_id = name;
    task.problem = small_problem();
    task.stage = "test";
    task.compiler_flags = std::move(flags);
    task.source = source;
    task.seed = 12345;
    const auto start = std::chrono::steady_clock::now();
    Measurement m = score_task(task, options);
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %s %.3f GFLOPS reps=%d (wall %.3f s) %s\n", name.c_str(),
                std::string(to_string(m.status)).c_str(), m.gflops, m.reps, wall_s,
                m.reason.c_str());
    return m;
  }
  Measurement score(const std::string &file, std::vector<std::string> flags = {"-O2"}) {
    return score_source(file, candidate(file), std::move(flags));
  }

  BenchOptions options;
  fs::path outside;  // a directory outside the candidate's own
  int sequence = 0;
};

TEST_F(SandboxedScore, ForkThroughAHandWrittenPrototypeIsForbidden) {
  const Measurement m = score("fork_prototype.c");
  EXPECT_EQ(m.status, Status::forbidden);
  EXPECT_EQ(m.reason, kSigsysReason);
  EXPECT_EQ(m.gflops, 0);
}

TEST_F(SandboxedScore, ForkThroughSyscallIsForbidden) {
  const Measurement m = score("fork_syscall.c");
  EXPECT_EQ(m.status, Status::forbidden);
  EXPECT_EQ(m.reason, kSigsysReason);
}

TEST_F(SandboxedScore, OpeningAFileForWritingIsForbiddenAndCreatesNothing) {
  const fs::path target = outside / "pwned";
  std::string source = candidate("writes_file.c");
  source.replace(source.find("@PWNED_PATH@"), 12, target.string());
  const Measurement m = score_source("writes_file.c", source);
  EXPECT_EQ(m.status, Status::forbidden);
  EXPECT_EQ(m.reason, kSigsysReason);
  EXPECT_FALSE(fs::exists(target));
  EXPECT_TRUE(fs::is_empty(outside));
}

TEST_F(SandboxedScore, HonestOpenMPCandidateIsOk) {
  // pin_threads is on by default: OMP_PROC_BIND=close, so libgomp pins each thread of the
  // team the executor starts before its filter (after it, sched_setaffinity does nothing).
  const Measurement m = score("openmp_correct.c", {"-O3", "-fopenmp"});
  ASSERT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_GT(m.gflops, 0);
  EXPECT_LT(m.max_error, 1e-14);
}

TEST_F(SandboxedScore, HonestOpenMPCandidateIsOkUnpinned) {
  options.pin_threads = false;
  const Measurement m = score("openmp_correct.c", {"-O3", "-fopenmp"});
  ASSERT_EQ(m.status, Status::ok) << m.reason;
}

TEST_F(SandboxedScore, PrintingAndQueryingTheCpuCountIsOk) {
  const Measurement m = score("prints_and_queries.c");
  ASSERT_EQ(m.status, Status::ok) << m.reason;
}

TEST_F(SandboxedScore, AbortIsARuntimeErrorNotForbidden) {
  const Measurement m = score("calls_abort.c");
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_NE(m.reason.find("SIGABRT"), std::string::npos) << m.reason;
}

}  // namespace
}  // namespace hpcreward
