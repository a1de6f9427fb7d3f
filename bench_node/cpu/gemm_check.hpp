#pragma once
// Correctness checks of one GEMM output. All error measures are relative to the inputs:
// ||error|| / (||A||_F ||B||_F), which a correct GEMM keeps near k * epsilon.
#include <span>

#include <cstddef>
#include <cstdint>

#include "bench_node/measure/residual_bound.hpp"
#include "common/problem.hpp"

namespace hpcreward {

template <typename T>
double frobenius_norm(std::span<const T> values);

template <typename T>
bool all_finite(std::span<const T> values);

// Full check against a reference: ||C - C_ref||_F / (||A||_F ||B||_F), its squares scaled so
// that a finite C gives a finite error unless the error itself passes the largest double. NaN
// when C holds a NaN or an infinity (so any `error <= tolerance` comparison fails).
template <typename T>
double normwise_error(std::span<const T> c, std::span<const T> c_ref, double norm_a, double norm_b);

// The index of the element of C farthest from C_ref: the first whose difference is NaN (a NaN
// in C) if there is one, else the largest |C - C_ref| (an infinity first).
template <typename T>
std::size_t most_wrong_element(std::span<const T> c, std::span<const T> c_ref);

// The randomized O(mn + nk + mk) residual check of one output (Freivalds, row by row; the
// bound and its argument: residual_bound.hpp). `weights` are the secret w_j in +-[0.25, 1],
// one per column; x_j = w_j / ||B_:j||, so every column of C counts alike whatever the
// inputs' scales, and the test runs per class of columns (residual_column_classes). Accumulates
// in long double for double operands, double otherwise.
struct RowResidual {
  bool finite = true;             // C x had no NaN or infinity
  std::size_t failing_rows = 0;   // rows with |r_ic| > bound.row * s_ic in some class c
  std::size_t first_failing_row = 0;
  double worst_ratio = 0;         // max |r_ic| / s_ic
  double normwise = 0;            // root mean square of r_ic / s_ic over every (row, class)
  double ratio_sq = 0;            // its parts, for a ResidualPool: the sum of squares
  double pairs = 0;               // and the number of (row, class) pairs with a scale
  double normwise_bound(const ResidualBound &bound) const { return hpcreward::normwise_bound(bound, pairs); }
  bool ok(const ResidualBound &bound) const {
    return finite && failing_rows == 0 && normwise <= normwise_bound(bound);
  }
  // Joins the next product of a batch, whose rows come `row_offset` rows after this one's.
  void add(const RowResidual &next, std::size_t row_offset);
};

// `single_columns` columns drawn from `secret` are tested each on its own (residual_bound.hpp):
// CUDA sgemm's inputs.
template <typename T>
RowResidual row_residual(const Shape &shape, const T *a, const T *b, const T *c,
                         std::span<const double> weights, const ResidualBound &bound, int single_columns = 0,
                         std::uint64_t secret = 0);

// The unit roundoff of row_residual's accumulation for operands of type T.
template <typename T>
double row_residual_roundoff();

// `error <= tolerance`, with NaN failing.
inline bool within_tolerance(double error, double tolerance) { return error <= tolerance; }

}  // namespace hpcreward
