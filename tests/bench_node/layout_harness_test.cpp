// The harness on transposed and batched problems (common/problem.hpp Layout), in this process
// on functions written here: honest kernels of every layout pass, and kernels that ignore the
// layout or skip products fail, with the product named.
#include <gtest/gtest.h>

#include <string>

#include "bench_node/cpu/harness.hpp"

namespace hpcreward {
namespace {

// C = op(A) op(B) row-major, A given k x m where transpose_a, B given n x k where transpose_b.
template <bool TransposeA, bool TransposeB>
void product(int m, int n, int k, const double *a, const double *b, double *c) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p)
        sum += (TransposeA ? a[p * m + i] : a[i * k + p]) * (TransposeB ? b[j * k + p] : b[p * n + j]);
      c[i * n + j] = sum;
    }
}

template <bool TransposeA, bool TransposeB>
void batched(int batch, int m, int n, int k, const double *a, const double *b, double *c) {
  for (int q = 0; q < batch; ++q)
    product<TransposeA, TransposeB>(m, n, k, a + q * m * k, b + q * k * n, c + q * m * n);
}

// Every product but the last: C's last product keeps its NaN poison.
void skips_the_last_product(int batch, int m, int n, int k, const double *a, const double *b, double *c) {
  batched<false, false>(batch - 1, m, n, k, a, b, c);
}

// Every product from the inputs of the first: a batch that reuses one product's work.
void repeats_the_first_product(int batch, int m, int n, int k, const double *a, const double *b, double *c) {
  for (int q = 0; q < batch; ++q) product<false, false>(m, n, k, a, b, c + q * m * n);
}

// Right through the full checks, then one product skipped once the timing loop has begun.
int honest_calls_left = 0;
void skips_a_product_later(int batch, int m, int n, int k, const double *a, const double *b, double *c) {
  batched<false, false>(--honest_calls_left >= 0 ? batch : batch - 1, m, n, k, a, b, c);
  if (honest_calls_left < 0)  // the skipped product's output from its A alone: finite, wrong
    for (int i = 0; i < m * n; ++i) c[(batch - 1) * m * n + i] = a[(batch - 1) * m * k + i % (m * k)];
}

HarnessConfig config(Layout layout, int batch = 1) {
  HarnessConfig config;
  config.layout = layout;
  config.nominal = {24, 20, 28, batch};
  config.check_shapes = {{25, 19, 35, layout.batched ? 3 : 1}, {5, 3, 7, layout.batched ? 2 : 1}};
  config.tolerance = 1e-10;
  config.timing.warmup_s = 0.001;
  config.timing.time_cap_s = 0.05;
  config.timing.min_reps = 5;
  config.timing.max_reps = 50;
  return config;
}

constexpr Layout kTn{.transpose_a = true}, kNt{.transpose_b = true}, kTt{.transpose_a = true, .transpose_b = true};
constexpr Layout kBatched{.batched = true};

TEST(LayoutHarness, HonestTransposedKernelsPass) {
  for (auto [layout, kernel] : {std::pair{kTn, &product<true, false>}, std::pair{kNt, &product<false, true>},
                                std::pair{kTt, &product<true, true>}}) {
    const Measurement m = run_harness<double>(kernel, config(layout));
    EXPECT_EQ(m.status, Status::ok) << to_string(layout) << ": " << m.reason;
    EXPECT_LT(m.max_error, 1e-14) << to_string(layout);
  }
}

TEST(LayoutHarness, AKernelThatIgnoresATransposeIsWrong) {
  // Row-major code on transposed operands reads the right values at the wrong places.
  for (auto [layout, kernel] : {std::pair{kTn, &product<false, false>}, std::pair{kNt, &product<false, false>},
                                std::pair{kTt, &product<true, false>}, std::pair{kTt, &product<false, true>}}) {
    const Measurement m = run_harness<double>(kernel, config(layout));
    EXPECT_EQ(m.status, Status::wrong_answer) << to_string(layout) << ": " << m.reason;
  }
}

TEST(LayoutHarness, HonestBatchedKernelPassesWithEveryProductCounted) {
  const Measurement m = run_harness<double>(&batched<false, false>, config(kBatched, 5));
  ASSERT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_NEAR(m.gflops, 5 * 2.0 * 24 * 20 * 28 / m.median_s / 1e9, 1e-9);
  Layout tt_batched = kTt;
  tt_batched.batched = true;
  const Measurement both = run_harness<double>(&batched<true, true>, config(tt_batched, 4));
  EXPECT_EQ(both.status, Status::ok) << both.reason;
}

TEST(LayoutHarness, ABatchThatSkipsOrRepeatsAProductIsWrongAndNamesIt) {
  const Measurement skipped = run_harness<double>(&skips_the_last_product, config(kBatched, 5));
  EXPECT_EQ(skipped.status, Status::wrong_answer);
  EXPECT_NE(skipped.reason.find("product 4"), std::string::npos) << skipped.reason;
  const Measurement repeated = run_harness<double>(&repeats_the_first_product, config(kBatched, 5));
  EXPECT_EQ(repeated.status, Status::wrong_answer);
  EXPECT_NE(repeated.reason.find("product 1"), std::string::npos) << repeated.reason;
}

TEST(LayoutHarness, AProductSkippedInTheTimedCallsIsCaught) {
  // Two calls per shape in the full checks (three shapes), then the timing loop.
  honest_calls_left = 3 * kVerifyCallsPerShape + 1;
  const Measurement m = run_harness<double>(&skips_a_product_later, config(kBatched, 5));
  EXPECT_EQ(m.status, Status::wrong_answer) << m.reason;
  EXPECT_NE(m.reason.find("rows fail the residual check (first product 4, row 0"), std::string::npos) << m.reason;
}

}  // namespace
}  // namespace hpcreward
