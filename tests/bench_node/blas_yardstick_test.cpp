// A CPU rank's yardstick: OpenBLAS at every layout and batch a C problem may have, measured
// once per problem. Speeds are not asserted (a loaded machine is slower), only that a
// measurement is there, and that nothing is measured for what a CPU rank does not score.
#include "bench_node/measure/blas_yardstick.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

namespace hpcreward {
namespace {

Problem problem(const char *id, Precision precision, Layout layout, Shape shape) {
  Problem p;
  p.id = id;
  p.precision = precision;
  p.layout = layout;
  p.nominal = shape;
  return p;
}

TEST(BlasYardstick, EveryLayoutAndBatchIsMeasured) {
  for (const Layout layout : {Layout{}, Layout{.transpose_a = true}, Layout{.transpose_b = true},
                              Layout{.transpose_a = true, .transpose_b = true, .batched = true}}) {
    const Shape shape{48, 40, 56, layout.batched ? 3 : 1};
    for (const Precision precision : {Precision::f64, Precision::f32}) {
      const double gflops = openblas_timing(problem("p", precision, layout, shape), 1).gflops;
      EXPECT_GT(gflops, 0) << to_string(layout);
      EXPECT_TRUE(std::isfinite(gflops)) << to_string(layout);
    }
  }
}

TEST(BlasYardstick, NothingForWhatACpuRankDoesNotScore) {
  Problem cuda = problem("cuda-p", Precision::f32, {}, {64, 64, 64});
  cuda.language = Language::cuda;
  EXPECT_EQ(openblas_timing(cuda, 1).gflops, 0);
  EXPECT_EQ(openblas_timing(cuda, 1).calls, 0);
}

TEST(BlasYardstick, EachProblemIsMeasuredAgainOnlyOnceItsFigureIsOld) {
  double now = 100;
  std::map<std::string, int> measured;
  CpuYardsticks yardsticks(1, "[test] ", /*refresh_s=*/30, [&] { return now; },
                           [&](const Problem &p, int) {
                             ++measured[p.id];
                             return YardstickTiming{.gflops = 10.0 * measured[p.id], .calls = 5, .iqr = 0.01};
                           });
  const Problem p = problem("p", Precision::f64, {}, {32, 32, 32});
  const Problem q = problem("q", Precision::f32, {}, {32, 32, 32});
  EXPECT_EQ(yardsticks.of(p).openblas, 10);
  now += 29.9;
  EXPECT_EQ(yardsticks.of(p).openblas, 10) << "the figure of 29.9 s ago";
  EXPECT_EQ(yardsticks.of(q).openblas, 10) << "each problem its own figure";
  now += 0.1;
  EXPECT_EQ(yardsticks.of(p).openblas, 20) << "30 s old: measured again";
  EXPECT_EQ(yardsticks.of(p).openblas, 20);
  EXPECT_EQ(yardsticks.of(q).openblas, 10) << "q's figure is 0.1 s old";
  EXPECT_EQ(measured["p"], 2);
  EXPECT_EQ(measured["q"], 1);
}

TEST(BlasYardstick, TheRealMeasurementSaysHowManyCallsAndTheirSpread) {
  const YardstickTiming timing = openblas_timing(problem("p", Precision::f64, {}, {32, 32, 32}), 1);
  EXPECT_GT(timing.gflops, 0);
  EXPECT_GE(timing.calls, 20) << "the stopping rule's fewest";
  EXPECT_LE(timing.calls, 400);
  EXPECT_GE(timing.iqr, 0);
  EXPECT_TRUE(std::isfinite(timing.iqr));
  CpuYardsticks yardsticks(1, "[test] ");
  EXPECT_GT(yardsticks.of(problem("p", Precision::f64, {}, {32, 32, 32})).openblas, 0);
}

}  // namespace
}  // namespace hpcreward
