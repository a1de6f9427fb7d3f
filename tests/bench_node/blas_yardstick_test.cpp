// A CPU rank's yardstick: OpenBLAS at every layout and batch a C problem may have, measured
// once per problem. Speeds are not asserted (a loaded machine is slower), only that a
// measurement is there, and that nothing is measured for what a CPU rank does not score.
#include "bench_node/measure/blas_yardstick.hpp"

#include <gtest/gtest.h>

#include <cmath>

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
      const double gflops = openblas_gflops(problem("p", precision, layout, shape), 1);
      EXPECT_GT(gflops, 0) << to_string(layout);
      EXPECT_TRUE(std::isfinite(gflops)) << to_string(layout);
    }
  }
}

TEST(BlasYardstick, NothingForWhatACpuRankDoesNotScore) {
  Problem cuda = problem("cuda-p", Precision::f32, {}, {64, 64, 64});
  cuda.language = Language::cuda;
  EXPECT_EQ(openblas_gflops(cuda, 1), 0);
}

TEST(BlasYardstick, EachProblemIsMeasuredOnce) {
  CpuYardsticks yardsticks(1, "[test] ");
  const Problem p = problem("p", Precision::f64, {}, {32, 32, 32});
  const Yardsticks &first = yardsticks.of(p);
  EXPECT_GT(first.openblas, 0);
  EXPECT_EQ(first.cublas, 0);
  EXPECT_EQ(&yardsticks.of(p), &first) << "the cached figure, not a second measurement";
}

}  // namespace
}  // namespace hpcreward
