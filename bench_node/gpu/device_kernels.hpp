#pragma once
// The runner's own device kernels: input values, NaN poison, guard patterns, checksums, the
// comparison with the reference, the randomized residual (Freivalds) check, the canary. All
// launch on the legacy default stream of the measurer's context (the candidate's runs in
// another process: gpu_executor.hpp).
#include <cstddef>
#include <cstdint>

#include "bench_node/measure/input_values.hpp"
#include "common/problem.hpp"

namespace hpcreward::gpu {

// Counters the device-side checks add to; one allocation reused by every check.
struct DeviceTally {
  unsigned long long nonfinite = 0;     // NaN or inf in the output
  unsigned long long violations = 0;    // elements beyond the element tolerance
  unsigned long long first_violation = ~0ULL;  // smallest violating index
  double error_sq = 0;   // sum ((C - Cref) / (|A||B|))^2 (scaled_normwise.hpp)
  double ref_sq = 0;     // sum (Cref / (|A||B|))^2
  double worst_ratio = 0;  // max |C - Cref| / (|A||B|)
};

// Values for a rows x cols row-major operand, A or B of one product drawn from `seed`, as
// input_values.hpp defines them: uniform in [-1, 1), with `patterned` times 2^e of the
// exponent pattern fp16 cannot hold.
void fill_operand(Precision precision, void *data, int rows, int cols, std::uint64_t seed, Operand which,
                  bool patterned);
void fill_nan(Precision precision, void *data, std::size_t count);
// Each of `count` rows x cols row-major matrices in `in`, one after another, into its
// cols x rows transpose in `out` (a transposed operand, as the candidate is given it).
void transpose(Precision precision, const void *in, void *out, int rows, int cols, int count);
void fill_guard(void *data, std::size_t bytes, std::uint64_t seed);
// Bytes that differ from fill_guard's pattern, added to *mismatches (device memory).
void count_guard_mismatches(const void *data, std::size_t bytes, std::uint64_t seed,
                            unsigned long long *mismatches);
// An order-independent 64-bit checksum of `bytes` bytes, written to *sum (device memory).
void checksum(const void *data, std::size_t bytes, unsigned long long *sum);
// out[i] = (double)in[i], or |in[i]| with `absolute`.
void widen(Precision precision, const void *in, double *out, std::size_t count, bool absolute);
// Compares C (the candidate's, precision) with Cref and bound = |A||B| (fp64), element by
// element, into *tally.
void compare_output(Precision precision, const void *c, const double *reference,
                    const double *bound, std::size_t count, double element_tolerance,
                    DeviceTally *tally);
// y = M x and y_sq = M^2 x_sq (element-wise squares) for a rows x cols row-major M of
// `precision`: the residual check's products and their scales (residual_bound.hpp).
void gemv(Precision precision, const void *matrix, int rows, int cols, const double *x,
          const double *x_sq, double *y, double *y_sq);
// norm[j] = ||M_:j||_2 for a rows x cols row-major M of `precision`.
void column_norms(Precision precision, const void *matrix, int rows, int cols, double *norm);
// The residual check's x: x_j = w_j / norm[j] (norm[j] > 0, else w_j) with w_j random in
// +-[0.25, 1) from `seed`, and x_sq = x^2.
void fill_vector(double *x, double *x_sq, const double *norm, int count, std::uint64_t seed);
// out = x and out_sq = x_sq where classes[i] == target, else 0: one class of columns
// (residual_bound.hpp residual_column_classes).
void select_class(const double *x, const double *x_sq, const int *classes, int target, double *out,
                  double *out_sq, int count);
// z = A (B x), z_sq = A^2 (B^2 x^2), w = C x: counts rows with |z_i - w_i| > row_bound *
// sqrt(z_sq_i) (plus the NaNs in w) into tally->violations / nonfinite; error_sq gets
// sum ((z - w) / sqrt(z_sq))^2 and ref_sq the count of rows with a scale, so
// sqrt(error_sq / ref_sq) is the root mean square of the rows' ratios (residual_bound.hpp).
// Rows are numbered from `first_row` in first_violation (a batch's products, one after another).
void compare_residual(const double *z, const double *z_sq, const double *w, int count,
                      double row_bound, DeviceTally *tally, unsigned long long first_row = 0);
// out[i] = a[i] * b[i] + i for the canary.
void canary(const float *a, const float *b, float *out, int count);

}  // namespace hpcreward::gpu
