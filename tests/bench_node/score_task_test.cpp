// score_task end to end, without MPI: real candidates (tests/bench_node/candidates), the
// real compiler, the built hpcreward-runner, always inside the sandbox.
#include "bench_node/rank/scorer.hpp"

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "common/problem_catalog.hpp"
#include "tests/bench_node/candidate_support.hpp"
#include "tests/support/quick_bench_options.hpp"

#include "bench_node/cpu/run_time_limit.hpp"
#include "bench_node/process/work_dir.hpp"
#include "common/number_text.hpp"

namespace hpcreward {
namespace {

// Processes whose command line mentions `text` (leftovers of a sandboxed run).
int processes_mentioning(const std::string &text) {
  int count = 0;
  DIR *proc = ::opendir("/proc");
  while (dirent *entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + entry->d_name + "/cmdline");
    std::string command_line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (command_line.find(text) != std::string::npos) ++count;
  }
  ::closedir(proc);
  return count;
}

class ScoreTask : public ::testing::Test {
 protected:
  void SetUp() override {
    options = quick_bench_options(HPCREWARD_RUNNER_PATH, "hpcreward-score-test");
  }
  void TearDown() override { remove_tree(options.work_root); }

  // The rule the rank derives its run limits from, for the options set (rates fixed, not measured).
  RunTimeLimitRule limit_rule() const {
    return {options.time_limit_factor, options.time_limit_floor_s, options.run_timeout_s,
            options.reference_gflops_per_core};
  }

  // infinite_loop.c at the real dgemm-256 (the limits scale with its shapes).
  BenchTask hang_at_dgemm256() {
    BenchTask task;
    task.sequence = ++sequence;
    task.candidate_id = "infinite_loop.c";
    task.problem = *find_problem("dgemm-256");
    task.stage = "test";
    task.compiler_flags = {"-O2"};
    task.source = candidate("infinite_loop.c");
    task.seed = 12345;
    return task;
  }

  Measurement score(const std::string &file, Precision precision = Precision::f64,
                    std::vector<std::string> flags = {"-O2"}) {
    BenchTask task;
    task.sequence = ++sequence;
    task.candidate_id = file;
    task.problem = small_problem(precision);
    task.stage = "test";
    task.compiler_flags = std::move(flags);
    task.source = candidate(file);
    task.seed = 12345;
    const auto start = std::chrono::steady_clock::now();
    Measurement m = score_task(task, options);
    wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %s %.3f GFLOPS reps=%d (compile %.3f s, verify %.3f s, time %.3f s, wall %.3f s) %s\n",
                file.c_str(), std::string(to_string(m.status)).c_str(), m.gflops, m.reps, m.compile_s,
                m.verify_s, m.time_s, wall_s, m.reason.c_str());
    return m;
  }
  static bool mentions(const Measurement &m, const std::string &text) {
    return m.reason.find(text) != std::string::npos;
  }

  BenchOptions options;
  int sequence = 0;
  double wall_s = 0;
};

TEST_F(ScoreTask, CorrectDgemmIsOk) {
  const Measurement m = score("correct_ikj.c");
  ASSERT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_GT(m.gflops, 0);
  EXPECT_GE(m.reps, 1);
  EXPECT_GT(m.median_s, 0);
  EXPECT_LE(m.min_s, m.median_s);
  EXPECT_LT(m.max_error, 1e-14);
  EXPECT_GT(m.compile_s, 0);
  EXPECT_GT(m.verify_s, 0);
  EXPECT_GT(m.time_s, 0);
  EXPECT_LT(m.time_s, 2.0);
  // Every candidate directory is gone afterwards.
  EXPECT_TRUE(std::filesystem::is_empty(options.work_root));
}

TEST_F(ScoreTask, CorrectSgemmIsOk) {
  const Measurement m = score("correct_sgemm.c", Precision::f32);
  ASSERT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_GT(m.gflops, 0);
  EXPECT_GT(m.max_error, 0);
  EXPECT_LT(m.max_error, 1e-5);
}

TEST_F(ScoreTask, DgemmCodeOnAnSgemmProblemIsWrong) {
  const Measurement m = score("correct_ikj.c", Precision::f32);
  EXPECT_TRUE(m.status == Status::wrong_answer || m.status == Status::runtime_error) << m.reason;
}

TEST_F(ScoreTask, SyntaxErrorIsACompileError) {
  const Measurement m = score("syntax_error.c");
  EXPECT_EQ(m.status, Status::compile_error);
  EXPECT_TRUE(mentions(m, "error: expected")) << m.reason;
  EXPECT_GT(m.compile_s, 0);
}

TEST_F(ScoreTask, UndefinedReferenceIsACompileError) {
  const Measurement m = score("undefined_symbol.c");
  EXPECT_EQ(m.status, Status::compile_error);
  EXPECT_TRUE(mentions(m, "helper_that_does_not_exist")) << m.reason;
}

TEST_F(ScoreTask, SegfaultIsARuntimeError) {
  const Measurement m = score("segfault.c");
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_TRUE(mentions(m, "killed by signal SIGSEGV")) << m.reason;
}

TEST_F(ScoreTask, InfiniteLoopTimesOut) {
  options.run_timeout_s = 2;
  const Measurement m = score("infinite_loop.c");
  EXPECT_EQ(m.status, Status::timeout) << m.reason;
  EXPECT_LT(wall_s, 8);
}

TEST_F(ScoreTask, InfiniteLoopAtDgemm256TimesOutAtTheDerivedLimit) {
  // Not the fixed --run-timeout of 60 s: the limit scaled from the rank's rate (fixed here,
  // not measured, so the limit is known exactly). At 50 GFLOPS per core the derived limit
  // falls to the 2 s floor, where the watchdog (1 s start + 1 s per call) would add nothing,
  // so the run's own limit ends the hang.
  options.run_timeout_s = 60;
  options.time_limit_factor = 100;
  options.time_limit_floor_s = 2;
  options.reference_gflops_per_core = 50;
  const BenchTask task = hang_at_dgemm256();
  const RunTimeLimit limit = run_time_limit(task.problem, options.timing, limit_rule());
  ASSERT_LT(limit.seconds, 10);
  ASSERT_GE(call_silence_limit(task.problem, limit_rule()).seconds, limit.seconds);
  const Measurement m = score_task(task, options);
  EXPECT_EQ(m.status, Status::timeout) << m.reason;
  EXPECT_TRUE(mentions(m, "exceeded the wall-clock limit of " + seconds_text(limit.seconds))) << m.reason;
  EXPECT_TRUE(mentions(m, "--time-limit-factor 100")) << m.reason;
}

TEST_F(ScoreTask, InfiniteLoopIsEndedByTheWatchdogBeforeTheRunsLimit) {
  // With the default floor of 5 s the run's limit is 5 s; one call's watchdog allows 2 s
  // (1 s start + the 1 s floor per call): the hung call ends there, at about 2 s.
  options.run_timeout_s = 60;
  options.time_limit_factor = 100;
  options.time_limit_floor_s = 5;
  options.reference_gflops_per_core = 20;
  const BenchTask task = hang_at_dgemm256();
  const RunTimeLimit silence = call_silence_limit(task.problem, limit_rule());
  ASSERT_LT(silence.seconds, run_time_limit(task.problem, options.timing, limit_rule()).seconds);
  const Measurement m = score_task(task, options);
  EXPECT_EQ(m.status, Status::timeout) << m.reason;
  // The watchdog's reason, not the run limit's ("exceeded the wall-clock limit of 5 s").
  EXPECT_TRUE(mentions(m, "did not return within " + seconds_text(silence.seconds))) << m.reason;
  EXPECT_TRUE(mentions(m, "without progress")) << m.reason;
}

TEST_F(ScoreTask, ExitInsideMatmulIsARuntimeError) {
  const Measurement m = score("exit_inside.c");
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_TRUE(mentions(m, "exited with code 0 in a call")) << m.reason;
}

TEST_F(ScoreTask, NanOutputIsWrong) {
  const Measurement m = score("nan_output.c");
  EXPECT_EQ(m.status, Status::wrong_answer);
  EXPECT_TRUE(mentions(m, "NaN")) << m.reason;
}

// Bugs are wrong answers, whatever the size of the wrong values: the element is named and
// the result channel carries the error (no malformed result, no hint of tampering).
TEST_F(ScoreTask, HugeValuesAreWrongAnswersNamingTheElement) {
  for (const char *file : {"huge_output.c", "reads_past_a.c"}) {
    const Measurement m = score(file);
    EXPECT_EQ(m.status, Status::wrong_answer) << file << ": " << m.reason;
    EXPECT_TRUE(mentions(m, "C[")) << m.reason;
    EXPECT_TRUE(mentions(m, "instead of")) << m.reason;
    for (const char *never : {"malformed", "something else", "tamper"}) EXPECT_FALSE(mentions(m, never)) << m.reason;
  }
}

// A race is caught whatever the rank's cores: on a rank whose share is one thread, the full
// checks of an OpenMP stage still run kFewestCheckThreads threads (omp_race.c is wrong with
// any two, in any order), while an honest OpenMP candidate is timed as before.
TEST_F(ScoreTask, AnOpenMPRaceIsWrongOnARankOfOneThread) {
  options.threads = 1;
  const Measurement race = score("omp_race.c", Precision::f64, {"-O2", "-fopenmp"});
  EXPECT_EQ(race.status, Status::wrong_answer) << race.reason;
  EXPECT_TRUE(mentions(race, "C[")) << race.reason;
  const Measurement honest = score("correct_openmp.c", Precision::f64, {"-O2", "-fopenmp"});
  EXPECT_EQ(honest.status, Status::ok) << honest.reason;
}

TEST_F(ScoreTask, HalfTheWorkIsWrong) {
  const Measurement m = score("half_work.c");
  EXPECT_EQ(m.status, Status::wrong_answer);
  EXPECT_TRUE(mentions(m, "64x64x64")) << m.reason;
}

TEST_F(ScoreTask, WritingPastTheEndOfCIsCaught) {
  const Measurement m = score("write_past_end.c");
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_TRUE(mentions(m, "wrote outside its output")) << m.reason;
}

TEST_F(ScoreTask, ModifyingAIsWrong) {
  const Measurement m = score("modifies_input.c");
  EXPECT_EQ(m.status, Status::wrong_answer);
  EXPECT_TRUE(mentions(m, "inputs modified")) << m.reason;
}

TEST_F(ScoreTask, HardWiredToTheNominalShapeFailsOnACheckShape) {
  const Measurement m = score("hardwired_64.c");
  EXPECT_EQ(m.status, Status::wrong_answer);
  EXPECT_TRUE(mentions(m, "67x65x71")) << m.reason;
}

TEST_F(ScoreTask, PointerKeyedCacheIsWrong) {
  const Measurement m = score("pointer_cache.c");
  EXPECT_EQ(m.status, Status::wrong_answer);
  // The second call on the same buffers replays the first call's result.
  EXPECT_TRUE(mentions(m, "(same buffers, new values)")) << m.reason;
}

TEST_F(ScoreTask, OutputFloodDoesNotHang) {
  const Measurement m = score("output_flood.c");
  EXPECT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_LT(wall_s, 15);
}

TEST_F(ScoreTask, NoEntryPointIsAFormatError) {
  const Measurement m = score("no_entry_point.c");
  EXPECT_EQ(m.status, Status::format_error);
  EXPECT_EQ(m.reason, "no matmul entry point");
}

TEST_F(ScoreTask, ForgedResultIsCaught) {
  const Measurement m = score("forged_result.c");
  EXPECT_EQ(m.status, Status::forbidden) << m.reason;
  EXPECT_EQ(m.gflops, 0);
  // The descriptor is the rank's, never what came out of the runner's pipe.
  EXPECT_FALSE(m.techniques.detected);
}

TEST_F(ScoreTask, ForkingCandidateIsForbiddenAndLeavesNothingBehind) {
  const Measurement m = score("forks_sleeper.c");
  EXPECT_EQ(m.status, Status::forbidden) << m.reason;  // seccomp kills the fork with SIGSYS
  EXPECT_TRUE(mentions(m, "SIGSYS")) << m.reason;
  EXPECT_LT(wall_s, 15);
  // SIGKILL is delivered asynchronously: give the killed child a moment to go.
  int left = processes_mentioning(options.work_root.string());
  for (int i = 0; i < 100 && left > 0; ++i) {
    ::usleep(20000);
    left = processes_mentioning(options.work_root.string());
  }
  EXPECT_EQ(left, 0);
}

TEST_F(ScoreTask, MemoryHogHitsTheLimit) {
  options.memory_limit_mb = 1024;
  const Measurement m = score("memory_hog.c", Precision::f64, {"-O0"});
  EXPECT_EQ(m.status, Status::runtime_error) << m.reason;
}

TEST_F(ScoreTask, MissingRunnerIsReportedNotThrown) {
  options.runner = "/nonexistent/hpcreward-runner";
  const Measurement m = score("correct_ikj.c");
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_TRUE(mentions(m, "could not start the runner")) << m.reason;
}

}  // namespace
}  // namespace hpcreward
