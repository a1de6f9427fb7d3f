#include "bench_node/cpu/gemm_check.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "bench_node/measure/random_fill.hpp"
#include "bench_node/cpu/reference_gemm.hpp"

namespace hpcreward {
namespace {

struct Case {
  Shape shape{37, 29, 41};
  std::vector<double> a, b, c;
  double norm_a = 0, norm_b = 0;
  Case() {
    Rng rng(7);
    a.resize(static_cast<std::size_t>(shape.m) * shape.k);
    b.resize(static_cast<std::size_t>(shape.k) * shape.n);
    c.resize(static_cast<std::size_t>(shape.m) * shape.n);
    fill_uniform(std::span<double>(a), rng);
    fill_uniform(std::span<double>(b), rng);
    reference_gemm(shape, a.data(), b.data(), c.data());
    norm_a = frobenius_norm(std::span<const double>(a));
    norm_b = frobenius_norm(std::span<const double>(b));
  }
};

TEST(RandomFill, ValuesInRangeAndReproducible) {
  std::vector<double> first(1000), second(1000);
  Rng one(42), two(42);
  fill_uniform(std::span<double>(first), one);
  fill_uniform(std::span<double>(second), two);
  EXPECT_EQ(first, second);
  for (double value : first) {
    EXPECT_GE(value, -1.0);
    EXPECT_LT(value, 1.0);
  }
}

TEST(NormwiseError, ZeroForTheReferenceTinyForRounding) {
  Case test;
  EXPECT_EQ(normwise_error(std::span<const double>(test.c), std::span<const double>(test.c),
                           test.norm_a, test.norm_b),
            0.0);
  std::vector<double> naive(test.c.size(), 0.0);  // j-inner loop: different rounding
  for (int i = 0; i < test.shape.m; ++i)
    for (int p = 0; p < test.shape.k; ++p)
      for (int j = 0; j < test.shape.n; ++j)
        naive[i * test.shape.n + j] += test.a[i * test.shape.k + p] * test.b[p * test.shape.n + j];
  const double error = normwise_error(std::span<const double>(naive), std::span<const double>(test.c),
                                      test.norm_a, test.norm_b);
  EXPECT_LT(error, 1e-14);
}

TEST(NormwiseError, CatchesOneWrongElement) {
  Case test;
  std::vector<double> wrong = test.c;
  wrong[123] += 1e-3;
  EXPECT_FALSE(within_tolerance(
      normwise_error(std::span<const double>(wrong), std::span<const double>(test.c), test.norm_a,
                     test.norm_b),
      1e-10));
}

TEST(NormwiseError, NanOrInfinityFails) {
  Case test;
  std::vector<double> wrong = test.c;
  wrong[5] = std::numeric_limits<double>::quiet_NaN();
  const double error = normwise_error(std::span<const double>(wrong), std::span<const double>(test.c),
                                      test.norm_a, test.norm_b);
  EXPECT_TRUE(std::isnan(error));
  EXPECT_FALSE(within_tolerance(error, 1e-10));
  wrong[5] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(all_finite(std::span<const double>(wrong)));
}

// A read past A puts huge but finite values in C: the error is huge, not an overflow to inf.
TEST(NormwiseError, HugeFiniteValuesGiveAHugeFiniteError) {
  Case test;
  std::vector<double> wrong = test.c;
  for (double &value : wrong) value *= 1e300;  // every square overflows
  const double error = normwise_error(std::span<const double>(wrong), std::span<const double>(test.c),
                                      test.norm_a, test.norm_b);
  EXPECT_TRUE(std::isfinite(error)) << error;
  EXPECT_GT(error, 1e290);
  wrong = test.c;
  wrong[77] = std::numeric_limits<double>::max();
  const double one = normwise_error(std::span<const double>(wrong), std::span<const double>(test.c), 1.0, 1.0);
  EXPECT_NEAR(one / std::numeric_limits<double>::max(), 1.0, 1e-12);
}

TEST(MostWrongElement, NamesTheFirstNanElseTheLargestDifference) {
  Case test;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto most_wrong = [&](const std::vector<double> &c) {
    return most_wrong_element(std::span<const double>(c), std::span<const double>(test.c));
  };
  std::vector<double> wrong = test.c;
  wrong[10] += 1;
  wrong[300] += 1e300;
  EXPECT_EQ(most_wrong(wrong), 300u);  // huge
  wrong[200] = -inf;
  EXPECT_EQ(most_wrong(wrong), 200u);  // infinite beats huge
  wrong[400] = nan;
  wrong[500] = nan;
  EXPECT_EQ(most_wrong(wrong), 400u);  // the first NaN beats all
  EXPECT_EQ(most_wrong(test.c), 0u);   // none wrong: the first
}

}  // namespace
}  // namespace hpcreward
