#pragma once
// How far a warm-up or timed output may stray in the randomized residual check, from the error
// an honest computation at the problem's precision makes, not from sum |A||B| (which grows with
// k while the cancellation in a product does not, and so admitted an all-zero fp16 C at 1024).
//
// The check (gemm_check.hpp row_residual; device_kernels.hpp on GPUs): x_j = w_j / ||B_:j||
// with w_j random in +-[0.25, 1] and secret, r = C x - A (B x), and per row
//   s_i = sqrt( sum_p A_ip^2 sum_j B_pj^2 x_j^2 ),
// the size of r_i when C_i is wrong by terms of the size of its products with random signs.
// An honest C_ij is off by at most about eps * sqrt(sum_p (A_ip B_pj)^2), so |r_i| <= row * s_i
// holds, and the root mean square of r_i / s_i over every (row, class) stays under normwise;
// an all-zero row gives |r_i| ~ s_i |N(0,1)|. The mean weighs every (row, class) alike: an
// ||r|| / ||s|| over inputs whose rows span 2^+-100 is the ratio of the one or two largest rows,
// which a truncating TF32 kernel at 4096 pushed over the bound on some inputs.
//
//   eps = acc(k)  +  u_inputs  +  u_output  +  u_check * (n + k)
//   row = 6 eps,  normwise = eps
//
// acc(k): the accumulation the problem asks for, u_acc * k, the worst drift of a biased
// (truncating) accumulator of unit roundoff u_acc: fp64 2^-53, fp32 2^-24, and for hgemm's fp32
// accumulation 2^-26 (a tensor core truncates once per mma of 4 products or more, into running
// sums the size of a random walk's); for an hgemm problem that allows fp16 accumulation
// (Accumulation::f16) the fp16 accumulator's own error, 2^-11 sqrt(k / 32) (fp16_accumulator_error);
// u_inputs: rounding of the inputs the problem allows (TF32 for CUDA sgemm: 2 x 2^-11 per
// product); u_output: rounding of C to its type (2^-11 for __half, 2^-8 for __nv_bfloat16); u_check: the check's own
// accumulation. docs/reward-integrity.md derives the false-accept and false-reject bounds.
//
// Column classes: the test runs once per class of columns, a class being the columns whose
// norm ||B_:j|| falls in the same kResidualClassBinades-wide band of binades (x is zero
// outside the class), and every (row, class) must pass. With inputs whose product scales are
// not separable (CUDA sgemm, input_values.hpp), one x over all columns weighs each row's
// columns of large products up to 2^100 times its balanced ones, so their loss (fp16) hid;
// within a class they weigh more alike. Inputs of one scale make one class.
//
// Single columns: with CUDA sgemm's inputs a row's columns of one norm still differ by their
// points' direction, and the few farthest from the row's point decide s_ic, hiding a loss in
// the columns near it (where every product counts: fp16 with row classes). So a secret,
// fresh choice of kResidualSingleColumns columns are classes of one each: there r_ij / s_ij
// is element (i, j)'s own error against sqrt(sum_p (A_ip B_pj)^2), and an honest error stays
// under it as in any class.
#include <cstdint>
#include <span>
#include <vector>

#include "common/problem.hpp"

namespace hpcreward {

inline constexpr double kResidualRowFactor = 6;
inline constexpr double kResidualNormwiseFactor = 1;
inline constexpr double kResidualClassBinades = 4;
inline constexpr int kResidualSingleColumns = 16;

struct ResidualBound {
  double error_scale = 0;  // eps above
  double row = 0;
  double normwise = 0;
};

// `check_unit_roundoff`: of the arithmetic the check accumulates in (2^-64 for x87 long
// double, 2^-53 for double).
// `accumulation`: the problem's (Problem::accumulation; f16 only for CUDA f16 problems).
ResidualBound residual_bound(Precision precision, Language language, const Shape &shape,
                             double check_unit_roundoff, Accumulation accumulation = Accumulation::f32);

// The bound on the root mean square of r_ic / s_ic over `pairs` (row, class) pairs. An honest
// ratio has variance at most eps^2 (errors of random sign), so pairs RMS^2 / eps^2 is at most a
// chi-square of `pairs` degrees of freedom; Laurent and Massart's tail, P(X - N >= 2 sqrt(N t)
// + 2 t) <= e^-t, gives eps sqrt(1 + 2 sqrt(t / N) + 2 t / N): 1.07 eps at 4096 pairs, 1.7 at
// 64, 7.2 at one (a single row, where the per-row test decides). Few rows (a decode GEMM of
// one token) carry little evidence per call; the timed calls' ratios pooled (ResidualPool)
// carry more.
inline constexpr double kResidualTailExponent = 21;  // e^-21 < 1e-9 per test
double normwise_bound(const ResidualBound &bound, double pairs);

// The (row, class) ratios of several outputs together: every timed call of a run, whose
// pooled root mean square must meet normwise_bound at their total count. The timing loop runs
// until the pool holds kResidualPoolPairs (calls_needed), so a problem of one row is judged on
// at least 64 ratios (bound 1.67 eps), not on the five calls a stable timing may stop at (3.7).
inline constexpr double kResidualPoolPairs = 64;
struct ResidualPool {
  double ratio_sq = 0;  // sum of (r_ic / s_ic)^2
  double pairs = 0;
  int calls = 0;
  void add(double more_ratio_sq, double more_pairs) {
    ratio_sq += more_ratio_sq;
    pairs += more_pairs;
    ++calls;
  }
  double normwise() const;
  bool ok(const ResidualBound &bound) const { return normwise() <= normwise_bound(bound, pairs); }
  // Timed calls for kResidualPoolPairs at the pairs per call seen so far (0 before the first).
  int calls_needed() const;
};

// The class of each column from its norm, numbered 0, 1, ... in increasing scale, with no
// empty class; `count` gets the number of classes. Zero norms form a class of their own.
// `single_columns` columns (all, if there are fewer), drawn from `secret`, are instead classes
// of their own, numbered after the norms' classes.
std::vector<int> residual_column_classes(std::span<const double> column_norms, int &count, int single_columns = 0,
                                         std::uint64_t secret = 0);

}  // namespace hpcreward
