#include "bench_node/rank/candidate_runner.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "bench_node/process/cpu_affinity.hpp"
#include "bench_node/cpu/runner_args.hpp"
#include "common/problem_catalog.hpp"

namespace hpcreward {
namespace {

BenchTask task() {
  BenchTask task;
  task.problem.precision = Precision::f32;
  task.problem.nominal = {8, 9, 10};
  task.problem.check_shapes = {{3, 5, 7}};
  task.problem.tolerance = 1e-4;
  task.seed = 99;
  return task;
}

TEST(SandboxedRunner, ChildSpecCarriesLimitsEnvironmentAndArguments) {
  SandboxOptions options{"/opt/hpcreward-runner", 12, 1ULL << 30, {}, true, {}};
  options.timing.min_reps = 4;
  const SandboxedRunner runner(options);
  const BenchTask t = task();
  const ChildSpec spec = runner.child_spec({"/w/cand.so", "/w", &t}, "tok");
  EXPECT_EQ(spec.program, "/opt/hpcreward-runner");
  EXPECT_EQ(spec.working_directory, "/w");
  EXPECT_EQ(spec.deadline_s, 12);
  EXPECT_EQ(spec.limits.address_space_bytes, 1ULL << 30);
  EXPECT_FALSE(spec.limits.file_size_bytes.has_value());  // the runner gives its executor 0
  EXPECT_EQ(spec.limits.open_files, 64u);
  EXPECT_EQ(spec.limits.core_bytes, 0u);
  EXPECT_EQ(*spec.limits.cpu_seconds, static_cast<std::uint64_t>(12 * affinity_cpu_count() + 5));
  EXPECT_EQ(runner.time_limit(t).basis, "--run-timeout (--time-limit-factor 0)");
  EXPECT_TRUE(spec.result_pipe);
  EXPECT_EQ(spec.token, "tok");
  EXPECT_EQ(get_variable(spec.environment, "MALLOC_ARENA_MAX"), "2");
  if (!std::getenv("OMP_NUM_THREADS")) {
    EXPECT_EQ(get_variable(spec.environment, "OMP_NUM_THREADS"), std::to_string(affinity_cpu_count()));
  }
  if (!std::getenv("OMP_PROC_BIND")) {
    EXPECT_EQ(get_variable(spec.environment, "OMP_PROC_BIND"), "close");
  }

  std::vector<const char *> argv{"hpcreward-runner"};
  for (const std::string &argument : spec.arguments) argv.push_back(argument.c_str());
  const RunnerArgs args = parse_runner_args(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(args.object_path, "/w/cand.so");
  EXPECT_EQ(args.precision, Precision::f32);
  EXPECT_EQ(args.nominal, (Shape{8, 9, 10}));
  EXPECT_EQ(args.check_shapes, (std::vector<Shape>{{3, 5, 7}}));
  EXPECT_EQ(args.timing.min_reps, 4);
}

TEST(SandboxedRunner, OneThreadPerPhysicalCorePinnedToCores) {
  if (std::getenv("OMP_NUM_THREADS") || std::getenv("OMP_PLACES")) GTEST_SKIP() << "OpenMP set in the environment";
  SandboxOptions options{"/r", 5, 1ULL << 30, {}, true};
  options.threads = 3;  // the rank's physical cores (rank_placement.hpp), not its SMT siblings
  const BenchTask t = task();
  const ChildSpec spec = SandboxedRunner(options).child_spec({"/w/cand.so", "/w", &t}, "tok");
  EXPECT_EQ(get_variable(spec.environment, "OMP_NUM_THREADS"), "3");
  EXPECT_EQ(get_variable(spec.environment, "OPENBLAS_NUM_THREADS"), "3");
  EXPECT_EQ(get_variable(spec.environment, "OMP_PLACES"), "cores");
}

// An OpenMP stage's full checks run with a few threads on a rank whose share is one thread.
TEST(SandboxedRunner, OpenMPChecksGetAFewThreadsWhateverTheShare) {
  SandboxOptions options{"/r", 5, 1ULL << 30, {}, true};
  BenchTask t = task();
  auto check_threads = [&](int share) {
    options.threads = share;
    const ChildSpec spec = SandboxedRunner(options).child_spec({"/w/cand.so", "/w", &t}, "tok");
    std::vector<const char *> argv{"hpcreward-runner"};
    for (const std::string &argument : spec.arguments) argv.push_back(argument.c_str());
    return parse_runner_args(static_cast<int>(argv.size()), argv.data()).check_threads;
  };
  t.compiler_flags = {"-O3", "-fopenmp"};
  EXPECT_EQ(check_threads(1), kFewestCheckThreads);
  EXPECT_EQ(check_threads(kFewestCheckThreads), 0);
  t.compiler_flags = {"-O3"};
  EXPECT_EQ(check_threads(1), 0);
}

TEST(SandboxedRunner, DeadlineScalesWithTheProblemUpToTheTimeout) {
  SandboxOptions options{"/r", 12, 1ULL << 30, {}, true, {}};
  options.time_limit = {.factor = 100, .floor_s = 0.5, .cap_s = 999, .reference_gflops = 10};
  const SandboxedRunner runner(options);
  const BenchTask t = task();
  const ChildSpec spec = runner.child_spec({"/w/cand.so", "/w", &t}, "tok");
  const RunTimeLimit limit = runner.time_limit(t);
  EXPECT_LT(limit.seconds, 12);  // a tiny problem: start + warm-up + timing bounds
  EXPECT_EQ(limit.seconds, run_time_limit(t.problem, options.timing, {100, 0.5, 12, 10}).seconds);
  EXPECT_EQ(spec.deadline_s, limit.seconds);
  EXPECT_EQ(*spec.limits.cpu_seconds,
            static_cast<std::uint64_t>(SandboxedRunner::cpu_limit_s(limit.seconds)));

  BenchTask large = t;
  large.problem.nominal = {4096, 4096, 4096};
  EXPECT_EQ(runner.time_limit(large).seconds, 12);  // the timeout caps it, not the rule's cap_s
}

TEST(SandboxedRunner, AWatchdogWhenItEndsAHungCallSooner) {
  SandboxOptions options{"/r", 60, 1ULL << 30, {}, true, {}};
  options.time_limit = {.factor = 2000, .floor_s = 5, .cap_s = 60, .reference_gflops = 100};
  const SandboxedRunner runner(options);
  BenchTask t = task();
  t.problem = *find_problem("dgemm-256");
  const ChildSpec spec = runner.child_spec({"/w/cand.so", "/w", &t}, "tok");
  EXPECT_TRUE(spec.progress_pipe);
  EXPECT_EQ(spec.silence_limit_s, runner.silence_limit(t).seconds);
  EXPECT_LT(spec.silence_limit_s, spec.deadline_s);
  const std::vector<std::string> &args = spec.arguments;
  auto at = std::find(args.begin(), args.end(), "--progress-fd");
  ASSERT_NE(at, args.end());
  EXPECT_EQ(*(at + 1), std::to_string(kChildProgressFd));

  // No derived limit (factor 0): no watchdog, no progress descriptor.
  options.time_limit.factor = 0;
  const ChildSpec plain = SandboxedRunner(options).child_spec({"/w/cand.so", "/w", &t}, "tok");
  EXPECT_FALSE(plain.progress_pipe);
  EXPECT_EQ(std::find(plain.arguments.begin(), plain.arguments.end(), "--progress-fd"), plain.arguments.end());
}

// The checks' team of 4 threads with forced switches on fewer CPUs slows a candidate with a
// parallel region per inner iteration 40 to 50 times (run_time_limit.hpp): its run and its
// watchdog allow for it there, and only there.
TEST(SandboxedRunner, OversubscribedOpenMPChecksGetTheirSlowdownInTheLimits) {
  SandboxOptions options{"/r", 60, 1ULL << 30, {}, true, {}};
  options.time_limit = {.factor = 2000, .floor_s = 1, .cap_s = 60, .reference_gflops = 50};
  BenchTask t = task();
  t.problem = *find_problem("dgemm-256");
  RunTimeLimitRule plain_rule = options.time_limit;
  RunTimeLimitRule slowed_rule = plain_rule;
  slowed_rule.checks_slowdown = kOversubscribedChecksSlowdown;
  auto limits = [&](int share, std::vector<std::string> flags) {
    options.threads = share;
    t.compiler_flags = std::move(flags);
    const SandboxedRunner runner(options);
    return std::pair{runner.time_limit(t), runner.silence_limit(t)};
  };
  const auto [slowed, slowed_silence] = limits(1, {"-O3", "-fopenmp"});
  EXPECT_EQ(slowed.seconds, run_time_limit(t.problem, options.timing, slowed_rule).seconds);
  EXPECT_EQ(slowed_silence.seconds, call_silence_limit(t.problem, slowed_rule).seconds);
  EXPECT_NE(slowed_silence.basis.find("x 16 (the checks' OpenMP team of 4 threads with forced switches"),
            std::string::npos) << slowed_silence.basis;
  // The checks run in the timed team (share of 4), or the stage has no OpenMP: as before.
  for (const auto &[share, flags] : {std::pair{kFewestCheckThreads, std::vector<std::string>{"-O3", "-fopenmp"}},
                                     std::pair{1, std::vector<std::string>{"-O3"}}}) {
    const auto [limit, silence] = limits(share, flags);
    EXPECT_EQ(limit.seconds, run_time_limit(t.problem, options.timing, plain_rule).seconds);
    EXPECT_EQ(silence.seconds, call_silence_limit(t.problem, plain_rule).seconds);
    EXPECT_EQ(silence.basis.find("forced switches"), std::string::npos) << silence.basis;
    EXPECT_LT(silence.seconds, slowed_silence.seconds);
  }
}

TEST(SandboxedRunner, NoThreadBindingWhenTheCpusAreShared) {
  if (std::getenv("OMP_PROC_BIND")) GTEST_SKIP() << "OMP_PROC_BIND set in the environment";
  const SandboxedRunner runner(SandboxOptions{"/r", 5, 1ULL << 30, {}, false, {}});
  const BenchTask t = task();
  EXPECT_FALSE(get_variable(runner.child_spec({"/w/cand.so", "/w", &t}, "tok").environment, "OMP_PROC_BIND"));
}

}  // namespace
}  // namespace hpcreward
