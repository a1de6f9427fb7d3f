// The row-wise residual check of timed outputs against its bound (residual_bound.hpp), on
// products computed the way honest and dishonest kernels compute them (simulated_products.hpp):
// the precisions a problem allows must pass with a wide margin, zeros, partial work and lower
// precisions must fail, checked in double as the device's check is.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "tests/bench_node/simulated_products.hpp"

namespace hpcreward {
namespace {

using test::chop_to_float;
using test::Product;
using test::round_mantissa;

ResidualBound bound_for(Precision precision, Language language, const Shape &shape, double check_roundoff) {
  return residual_bound(precision, language, shape, check_roundoff);
}

// Passes, and by a margin: its normwise residual is under the bound / `margin`.
template <typename T>
void expect_honest(const Product<T> &product, const std::vector<T> &c, const ResidualBound &bound,
                   double margin = 2) {
  const RowResidual r = product.check(c, bound);
  EXPECT_TRUE(r.ok(bound)) << "rows failing " << r.failing_rows << " worst " << r.worst_ratio << " > " << bound.row
                           << ", normwise " << r.normwise << " > " << bound.normwise;
  EXPECT_LT(r.normwise, bound.normwise / margin) << "too little margin for an honest product";
  EXPECT_LT(r.worst_ratio, bound.row / 2);
}

template <typename T>
void expect_caught(const Product<T> &product, const std::vector<T> &c, const ResidualBound &bound) {
  const RowResidual r = product.check(c, bound);
  EXPECT_FALSE(r.ok(bound)) << "rows failing " << r.failing_rows << " worst " << r.worst_ratio << " (bound " << bound.row
                            << "), normwise " << r.normwise << " (bound " << bound.normwise << ")";
}

TEST(RowResidual, DoubleHonestOrdersPassFloatArithmeticFails) {
  const Product<double> product({48, 96, 512}, 0, false);
  const ResidualBound bound = bound_for(Precision::f64, Language::c, product.shape, row_residual_roundoff<double>());
  expect_honest(product, product.compute([&](int i, int j) {
    double sum = 0;
    for (int p = 0; p < product.shape.k; ++p) sum += product.a[i * product.shape.k + p] * product.b[p * product.shape.n + j];
    return sum;
  }), bound);
  expect_honest(product, product.compute([&](int i, int j) {  // reversed, in blocks of 64
    double total = 0;
    for (int block = product.shape.k - 64; block >= 0; block -= 64) {
      double sum = 0;
      for (int p = block + 63; p >= block; --p) sum += product.a[i * product.shape.k + p] * product.b[p * product.shape.n + j];
      total += sum;
    }
    return total;
  }), bound);
  expect_caught(product, product.compute([&](int i, int j) {  // a dgemm done in float
    float sum = 0;
    for (int p = 0; p < product.shape.k; ++p)
      sum += static_cast<float>(product.a[i * product.shape.k + p]) * static_cast<float>(product.b[p * product.shape.n + j]);
    return static_cast<double>(sum);
  }), bound);
}

TEST(RowResidual, FloatSequentialAccumulationPassesBf16Fails) {
  const Product<float> product({48, 96, 1024}, 0, false);
  const ResidualBound bound = bound_for(Precision::f32, Language::c, product.shape, row_residual_roundoff<float>());
  expect_honest(product, product.compute([&](int i, int j) {
    float sum = 0;
    for (int p = 0; p < product.shape.k; ++p) sum += product.a[i * product.shape.k + p] * product.b[p * product.shape.n + j];
    return sum;
  }), bound);
  expect_caught(product, product.compute([&](int i, int j) {
    float sum = 0;
    for (int p = 0; p < product.shape.k; ++p)
      sum += round_mantissa(product.a[i * product.shape.k + p], 7) * round_mantissa(product.b[p * product.shape.n + j], 7);
    return sum;
  }), bound);
}

// CUDA sgemm: the measurer's inputs (input_values.hpp: products within 2^+-100, not separable).
class CudaSgemm : public ::testing::Test {
 protected:
  const Product<float> product{{64, 128, 1024}, test::HarnessInputs{}, 20261124};
  const ResidualBound bound = bound_for(Precision::f32, Language::cuda, product.shape, 0x1p-53);
  float dot(int i, int j, int mantissa_bits) const {
    float sum = 0;
    for (int p = 0; p < product.shape.k; ++p)
      sum += round_mantissa(product.a[i * product.shape.k + p], mantissa_bits) *
             round_mantissa(product.b[p * product.shape.n + j], mantissa_bits);
    return sum;
  }
};

TEST_F(CudaSgemm, Fp32AndTf32Pass) {
  expect_honest(product, product.compute([&](int i, int j) { return dot(i, j, 23); }), bound);
  expect_honest(product, product.compute([&](int i, int j) { return dot(i, j, 10); }), bound);
}

TEST_F(CudaSgemm, Bf16ZerosAndPartialWorkFail) {
  expect_caught(product, product.compute([&](int i, int j) { return dot(i, j, 7); }), bound);
  expect_caught(product, product.compute([](int, int) { return 0.0f; }), bound);
  // Only the columns whose scale is large: the rest are invisible next to them unless the
  // check weighs every column alike.
  std::vector<double> column_norm(product.shape.n, 0);
  for (int p = 0; p < product.shape.k; ++p)
    for (int j = 0; j < product.shape.n; ++j) column_norm[j] += std::pow(product.b[p * product.shape.n + j], 2);
  std::vector<double> sorted = column_norm;
  std::sort(sorted.begin(), sorted.end());
  const double cut = sorted[sorted.size() / 2];
  expect_caught(product, product.compute([&](int i, int j) { return column_norm[j] >= cut ? dot(i, j, 23) : 0.0f; }),
                bound);
  // One column left out of 128.
  expect_caught(product, product.compute([&](int i, int j) { return j == 5 ? 0.0f : dot(i, j, 23); }), bound);
  // One row left out of 64.
  expect_caught(product, product.compute([&](int i, int j) { return i == 9 ? 0.0f : dot(i, j, 23); }), bound);
}

// CUDA hgemm: __half inputs in [-1, 1), fp32 accumulation, C rounded to __half.
class CudaHgemm : public ::testing::Test {
 protected:
  const Product<float> product{{64, 128, 1024}, 0, true};
  const ResidualBound bound = bound_for(Precision::f16, Language::cuda, product.shape, 0x1p-53);
  float fp32_accumulated(int i, int j) const {
    float sum = 0;
    for (int p = 0; p < product.shape.k; ++p) sum += product.a[i * product.shape.k + p] * product.b[p * product.shape.n + j];
    return sum;
  }
};

TEST_F(CudaHgemm, Fp32AccumulationPassesRoundedOrTruncated) {
  expect_honest(product, product.compute([&](int i, int j) { return round_mantissa(fp32_accumulated(i, j), 10); }),
                bound);
  expect_honest(product, product.compute([&](int i, int j) {
    const float exact = fp32_accumulated(i, j), rounded = round_mantissa(exact, 10);
    // __float2half_rz: one step toward zero when rounding went away from it.
    if (std::fabs(rounded) <= std::fabs(exact)) return rounded;
    return rounded - std::copysign(std::ldexp(1.0f, std::ilogb(rounded) - 10), rounded);
  }), bound, 1.3);  // 1.37: hgemm's fp32 drift term is 2^-26 k (accumulation_test.cpp), 1.4 before
  expect_honest(product, product.compute([&](int i, int j) {  // a truncating fp32 accumulator
    float sum = 0;
    for (int p = 0; p < product.shape.k; ++p)
      sum = chop_to_float(static_cast<double>(sum) + product.a[i * product.shape.k + p] * product.b[p * product.shape.n + j]);
    return round_mantissa(sum, 10);
  }), bound);
}

TEST_F(CudaHgemm, Fp16AccumulationAndZerosFail) {
  // An fp16 accumulator, rounded after every 16 products as an HMMA with fp16 accumulation is.
  expect_caught(product, product.compute([&](int i, int j) {
    float sum = 0;
    for (int p0 = 0; p0 < product.shape.k; p0 += 16) {
      float chunk = 0;
      for (int p = p0; p < p0 + 16 && p < product.shape.k; ++p)
        chunk += product.a[i * product.shape.k + p] * product.b[p * product.shape.n + j];
      sum = round_mantissa(sum + chunk, 10);
    }
    return sum;
  }), bound);
  expect_caught(product, product.compute([](int, int) { return 0.0f; }), bound);
}

// CUDA bf16: __nv_bfloat16 inputs in [-1, 1), fp32 accumulation, C rounded to bf16.
TEST(CudaBf16, Fp32AccumulationPassesRoundedOrTruncatedABf16AccumulatorFails) {
  const Product<float> product{{64, 128, 1024}, 0, false};
  std::vector<float> a = product.a, b = product.b;
  for (float &v : a) v = round_mantissa(v, 7);
  for (float &v : b) v = round_mantissa(v, 7);
  Product<float> bf16 = product;
  bf16.a = a;
  bf16.b = b;
  const Shape &s = bf16.shape;
  const ResidualBound bound = bound_for(Precision::bf16, Language::cuda, s, 0x1p-53);
  auto dot = [&](int i, int j, bool bf16_accumulator) {
    float sum = 0, chunk = 0;
    for (int p = 0; p < s.k; ++p) {
      const float term = a[i * s.k + p] * b[p * s.n + j];
      if (!bf16_accumulator) {
        sum += term;
        continue;
      }
      chunk += term;
      if (p % 16 == 15) sum = round_mantissa(sum + chunk, 7), chunk = 0;
    }
    return sum + chunk;
  };
  const std::vector<float> rounded = bf16.compute([&](int i, int j) { return round_mantissa(dot(i, j, false), 7); });
  std::printf("bf16 output rounded to nearest: normwise %.2f eps\n", bf16.check(rounded, bound).normwise / bound.normwise);
  expect_honest(bf16, rounded, bound);
  // Toward zero, as __float2bfloat16_rz: a one-sided error of up to a whole ulp, 0.76 eps here.
  expect_honest(bf16, bf16.compute([&](int i, int j) {
    const float exact = dot(i, j, false), rounded = round_mantissa(exact, 7);
    if (std::fabs(rounded) <= std::fabs(exact)) return rounded;
    return rounded - std::copysign(std::ldexp(1.0f, std::ilogb(rounded) - 7), rounded);
  }), bound, 1.25);
  expect_caught(bf16, bf16.compute([&](int i, int j) { return round_mantissa(dot(i, j, true), 7); }), bound);
}

// One row (a decode GEMM of one token): a single (row, class) ratio per call, heavy-tailed, so
// the per-call normwise bound widens (normwise_bound) and the evidence comes from the run's
// calls pooled (ResidualPool). Forty calls, each on inputs of its own, as the harness draws them.
TEST(CudaHgemmOneRow, RoundedOutputPassesEveryCallAndFp16AccumulationFailsPooled) {
  const Shape shape{1, 1024, 4096};
  const ResidualBound bound = bound_for(Precision::f16, Language::cuda, shape, 0x1p-53);
  ResidualPool honest_pool, fp16_pool, half_and_half;  // the last: fp16 on even seeds, to move the median
  int honest_failures = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Product<float> product{shape, 0, true, seed};
    auto dot = [&](int i, int j, bool fp16_accumulator) {
      float sum = 0, chunk = 0;
      for (int p = 0; p < shape.k; ++p) {
        const float product_term = product.a[i * shape.k + p] * product.b[p * shape.n + j];
        if (!fp16_accumulator) {
          sum += product_term;
          continue;
        }
        chunk += product_term;
        if (p % 16 == 15) sum = round_mantissa(sum + chunk, 10), chunk = 0;
      }
      return round_mantissa(sum + chunk, 10);
    };
    const RowResidual honest = product.check(product.compute([&](int i, int j) { return dot(i, j, false); }), bound);
    honest_failures += !honest.ok(bound);
    honest_pool.add(honest.ratio_sq, honest.pairs);
    const RowResidual fp16 = product.check(product.compute([&](int i, int j) { return dot(i, j, true); }), bound);
    fp16_pool.add(fp16.ratio_sq, fp16.pairs);
    const RowResidual &chosen = seed % 2 == 0 ? fp16 : honest;
    half_and_half.add(chosen.ratio_sq, chosen.pairs);
  }
  std::printf("1 x 1024 x 4096 over 40 calls, in eps: honest %.2f, fp16 accumulation %.2f, half of each %.2f "
              "(pooled bound %.2f)\n",
              honest_pool.normwise() / bound.normwise, fp16_pool.normwise() / bound.normwise,
              half_and_half.normwise() / bound.normwise, normwise_bound(bound, fp16_pool.pairs) / bound.normwise);
  EXPECT_EQ(honest_failures, 0);
  EXPECT_TRUE(honest_pool.ok(bound)) << honest_pool.normwise() << " > " << normwise_bound(bound, honest_pool.pairs);
  EXPECT_FALSE(fp16_pool.ok(bound)) << fp16_pool.normwise() << " <= " << normwise_bound(bound, fp16_pool.pairs);
  EXPECT_FALSE(half_and_half.ok(bound)) << "cheating in half the timed calls";
}

TEST(ResidualPool, AskForCallsUntilItHolds64Pairs) {
  ResidualPool one_row;
  EXPECT_EQ(one_row.calls_needed(), 0) << "nothing known before the first call";
  one_row.add(0.5, 1);
  EXPECT_EQ(one_row.calls_needed(), 64);
  ResidualPool tall;
  tall.add(30, 4096);
  EXPECT_EQ(tall.calls_needed(), 1);
  ResidualPool few;  // 3 rows in 2 classes a call
  few.add(1, 6);
  few.add(1, 6);
  EXPECT_EQ(few.calls_needed(), 11);
}

TEST(ResidualBound, NormwiseBoundLoosensOnlyForFewPairs) {
  const ResidualBound bound = bound_for(Precision::f32, Language::cuda, {64, 64, 64}, 0x1p-53);
  const double eps = bound.normwise;
  EXPECT_EQ(normwise_bound(bound, 0), eps);
  EXPECT_NEAR(normwise_bound(bound, 1) / eps, 7.2, 0.05);
  EXPECT_NEAR(normwise_bound(bound, 64) / eps, 1.67, 0.01);
  EXPECT_NEAR(normwise_bound(bound, 4096) / eps, 1.074, 0.002);
  EXPECT_LT(normwise_bound(bound, 1e8) / eps, 1.001);
  // The bf16 operands of CUDA sgemm read 1.64 to 1.77 eps (Fp16Range): still caught from
  // about 200 (row, class) pairs on, one timed call at the nominal shapes.
  EXPECT_LT(normwise_bound(bound, 200) / eps, 1.64);
}

// Single columns: drawn from the secret, each a class of its own after the norms' classes,
// which stay numbered without gaps; every column single where there are fewer.
TEST(ResidualColumnClasses, SingleColumnsAreClassesOfTheirOwnAfterTheBands) {
  const std::vector<double> norms = {1, 1, 1, 1e6, 1e6, 1e6, 1e12, 1e12, 1e12};
  int count = 0;
  const std::vector<int> plain = residual_column_classes(norms, count);
  EXPECT_EQ(count, 3);
  const std::vector<int> classes = residual_column_classes(norms, count, 2, 99);
  EXPECT_EQ(count, 5);  // two singles cannot empty a band of three
  std::vector<int> members(count, 0);
  for (int c : classes) ++members.at(c);
  EXPECT_EQ(members[3], 1);
  EXPECT_EQ(members[4], 1);
  for (std::size_t j = 0; j < norms.size(); ++j)  // the rest keep their bands
    if (classes[j] < 3) EXPECT_EQ(classes[j], plain[j]);
  EXPECT_NE(residual_column_classes(norms, count, 2, 100), classes);  // another secret, other columns (here)
  residual_column_classes(norms, count, 20, 1);
  EXPECT_EQ(count, 9);
}

TEST(RowResidual, NanAndInfinityFail) {
  const Product<double> product({8, 6, 5}, 0, false);
  const ResidualBound bound = bound_for(Precision::f64, Language::c, product.shape, row_residual_roundoff<double>());
  std::vector<double> c = product.compute([&](int i, int j) { return product.exact(i, j); });
  EXPECT_TRUE(product.check(c, bound).ok(bound));
  c[7] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(product.check(c, bound).finite);
  c[7] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(product.check(c, bound).ok(bound));
}

TEST(ResidualBound, GrowsWithKAndPrecision) {
  const Shape small{256, 256, 256}, large{256, 256, 4096};
  EXPECT_LT(residual_bound(Precision::f64, Language::c, small, 0x1p-64).row,
            residual_bound(Precision::f64, Language::c, large, 0x1p-64).row);
  EXPECT_LT(residual_bound(Precision::f64, Language::c, small, 0x1p-64).row,
            residual_bound(Precision::f32, Language::c, small, 0x1p-64).row);
  // TF32 only where the problem allows it (CUDA sgemm).
  EXPECT_LT(residual_bound(Precision::f32, Language::c, small, 0x1p-53).row,
            residual_bound(Precision::f32, Language::cuda, small, 0x1p-53).row);
}

}  // namespace
}  // namespace hpcreward
