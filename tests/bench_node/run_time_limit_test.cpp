#include "bench_node/cpu/run_time_limit.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "bench_node/cpu/harness.hpp"
#include "common/problem_catalog.hpp"

namespace hpcreward {
namespace {

TimingOptions timing() {
  TimingOptions options;
  options.warmup_s = 0.2;
  options.time_cap_s = 2.0;
  return options;
}

RunTimeLimitRule rule(double reference_gflops) {
  return {.factor = 500, .floor_s = 5, .cap_s = 60, .reference_gflops = reference_gflops};
}

const Problem &dgemm256() { return *find_problem("dgemm-256"); }

TEST(RunTimeLimit, FollowsTheFormula) {
  const Problem &problem = dgemm256();
  double flops = (2 + kVerifyCallsPerShape) * problem.nominal.flops();
  for (const Shape &shape : problem.check_shapes) flops += kVerifyCallsPerShape * shape.flops();
  const double reference_s = flops / 20e9;
  const RunTimeLimit limit = run_time_limit(problem, timing(), rule(20));
  EXPECT_NEAR(limit.seconds, kRunnerStartAllowanceS + 0.2 + 2.0 + 501 * reference_s, 1e-9);
  EXPECT_NE(limit.basis.find("--time-limit-factor 500"), std::string::npos) << limit.basis;
}

TEST(RunTimeLimit, AHungDgemm256CostsSecondsNotAMinute) {
  // 10 GFLOPS per core is below any AVX2 core's OpenBLAS rate: the limit only shrinks on faster ones.
  const RunTimeLimit limit = run_time_limit(dgemm256(), timing(), rule(10));
  EXPECT_LT(limit.seconds, 15) << limit.basis;
  EXPECT_GE(limit.seconds, 5);
}

TEST(RunTimeLimit, ANaiveO0LoopFitsComfortably) {
  // A naive -O0 i-j-k loop reaches 0.61 GFLOPS at 256^3 on a core whose f64 ceiling measured
  // 15.2 (docs/reports/cpu-harness.md): a ratio of 25. Even at a ratio of 100 (a fast AVX-512 core), the limit
  // leaves more than twice what the loop needs beyond the warm-up and timing bounds: the
  // flops of 2 calls per shape and of the 2 calls past those bounds.
  const Problem &problem = dgemm256();
  double flops = (2 + kVerifyCallsPerShape) * problem.nominal.flops();
  for (const Shape &shape : problem.check_shapes) flops += kVerifyCallsPerShape * shape.flops();
  const double naive_calls_s = flops / 0.61e9;
  const double bounded_s = kRunnerStartAllowanceS + 0.2 + 2.0;  // start, warm-up, timing loop
  for (double ceiling : {15.2, 61.0}) {
    const RunTimeLimit limit = run_time_limit(problem, timing(), rule(ceiling));
    EXPECT_GT(limit.seconds - bounded_s, 2 * naive_calls_s) << limit.basis;
  }
}

TEST(RunTimeLimit, FloorAndCap) {
  Problem tiny = dgemm256();
  tiny.nominal = {8, 8, 8};
  tiny.check_shapes = {{9, 7, 5}};
  const RunTimeLimit floor = run_time_limit(tiny, timing(), rule(20));
  EXPECT_EQ(floor.seconds, 5);
  EXPECT_NE(floor.basis.find("--time-limit-floor-s 5"), std::string::npos) << floor.basis;

  const RunTimeLimit cap = run_time_limit(*find_problem("dgemm-1024"), timing(), rule(20));
  EXPECT_EQ(cap.seconds, 60);
  EXPECT_NE(cap.basis.find("capped by --run-timeout 60"), std::string::npos) << cap.basis;

  RunTimeLimitRule short_timeout = rule(20);
  short_timeout.cap_s = 4;  // --run-timeout below the floor: the timeout wins
  EXPECT_EQ(run_time_limit(tiny, timing(), short_timeout).seconds, 4);
}

TEST(RunTimeLimit, WithoutAFactorOrARateItIsTheRunTimeout) {
  RunTimeLimitRule off = rule(20);
  off.factor = 0;
  EXPECT_EQ(run_time_limit(dgemm256(), timing(), off).seconds, 60);
  const RunTimeLimit unmeasured = run_time_limit(dgemm256(), timing(), rule(0));
  EXPECT_EQ(unmeasured.seconds, 60);
  EXPECT_NE(unmeasured.basis.find("not measured"), std::string::npos) << unmeasured.basis;
}

TEST(CallSilenceLimit, FollowsTheFormula) {
  const Problem &problem = dgemm256();
  double largest = problem.nominal.flops();
  for (const Shape &shape : problem.check_shapes) largest = std::max(largest, shape.flops());
  const RunTimeLimit silence = call_silence_limit(problem, rule(1));  // 501 x 33.6 ms: above the floor
  EXPECT_NEAR(silence.seconds, kRunnerStartAllowanceS + 501 * largest / 1e9, 1e-9);
  EXPECT_NE(silence.basis.find("--time-limit-factor 500"), std::string::npos) << silence.basis;
  // A fast core: the floor. A hung call at dgemm-256 costs about 2 s, not the run's limit.
  const RunTimeLimit fast = call_silence_limit(problem, rule(100));
  EXPECT_EQ(fast.seconds, kRunnerStartAllowanceS + kCallFloorS);
  EXPECT_LT(fast.seconds, run_time_limit(problem, timing(), rule(100)).seconds);
}

TEST(CallSilenceLimit, ANaiveO0CallFitsComfortably) {
  // The naive -O0 loop of ANaiveO0LoopFitsComfortably (0.61 GFLOPS at 256^3, on cores whose
  // ceilings are 25 and 100 times faster): one call must fit many times over, at every
  // built-in problem's largest shape.
  for (const Problem &problem : builtin_problems()) {
    if (problem.language != Language::c) continue;  // CUDA problems: GPU ranks, their own limits
    double largest = problem.nominal.flops();
    for (const Shape &shape : problem.check_shapes) largest = std::max(largest, shape.flops());
    for (double ceiling : {15.2, 61.0}) {
      const RunTimeLimit silence = call_silence_limit(problem, rule(ceiling));
      EXPECT_GT(silence.seconds - kRunnerStartAllowanceS, 3 * largest / 0.61e9) << problem.id << " " << silence.basis;
    }
  }
}

TEST(RunTimeLimit, TheChecksCountAtTheirSlowdown) {
  const Problem &problem = dgemm256();
  double checks = kVerifyCallsPerShape * problem.nominal.flops();
  for (const Shape &shape : problem.check_shapes) checks += kVerifyCallsPerShape * shape.flops();
  RunTimeLimitRule slowed = rule(20);
  slowed.checks_slowdown = 16;
  const double reference_s = (2 * problem.nominal.flops() + 16 * checks) / 20e9;
  const RunTimeLimit limit = run_time_limit(problem, timing(), slowed);
  EXPECT_NEAR(limit.seconds, std::min(60.0, kRunnerStartAllowanceS + 0.2 + 2.0 + 501 * reference_s), 1e-9);
  EXPECT_NE(limit.basis.find("the full checks x 16 (the checks' OpenMP team"), std::string::npos) << limit.basis;
  EXPECT_GT(limit.seconds, run_time_limit(problem, timing(), rule(20)).seconds);

  // The watchdog waits 16 times as long for a call of such a run (its calls are not told
  // apart); at 1 GFLOPS a core both are above the floor.
  slowed.reference_gflops = 1;
  const RunTimeLimit silence = call_silence_limit(problem, slowed);
  const RunTimeLimit plain = call_silence_limit(problem, rule(1));
  EXPECT_NEAR(silence.seconds - kRunnerStartAllowanceS, 16 * (plain.seconds - kRunnerStartAllowanceS), 1e-9);
  EXPECT_NE(silence.basis.find("GFLOPS per core) x 16 (the checks'"), std::string::npos) << silence.basis;
}

TEST(CallSilenceLimit, NoWatchdogWithoutADerivedLimit) {
  RunTimeLimitRule off = rule(20);
  off.factor = 0;
  EXPECT_EQ(call_silence_limit(dgemm256(), off).seconds, 0);
  EXPECT_EQ(call_silence_limit(dgemm256(), rule(0)).seconds, 0);
}

TEST(RunTimeLimit, NeverAboveTheRunTimeout) {
  // The rank's hello reports --compile-timeout + --run-timeout + allowance as its task limit
  // (bench_cli.hpp): every derived limit must stay under it, whatever the rate or factor.
  for (const Problem &problem : builtin_problems())
    for (double rate : {0.001, 1.0, 1000.0})
      for (double factor : {10.0, 500.0, 1e6}) {
        RunTimeLimitRule r = rule(rate);
        r.factor = factor;
        EXPECT_LE(run_time_limit(problem, timing(), r).seconds, 60) << problem.id;
      }
}

}  // namespace
}  // namespace hpcreward
