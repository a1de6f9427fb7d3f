#pragma once
// Correctness checks of one GEMM output. All error measures are relative to the inputs:
// ||error|| / (||A||_F ||B||_F), which a correct GEMM keeps near k * epsilon.
#include <span>

#include "common/problem.hpp"

namespace hpcreward {

template <typename T>
double frobenius_norm(std::span<const T> values);

template <typename T>
bool all_finite(std::span<const T> values);

// Full check against a reference: ||C - C_ref||_F / (||A||_F ||B||_F). NaN when C holds a
// NaN or an infinity (so any `error <= tolerance` comparison fails).
template <typename T>
double normwise_error(std::span<const T> c, std::span<const T> c_ref, double norm_a, double norm_b);

// Freivalds' randomized O(mn + nk + mk) residual check: with `x` random in R^n,
// ||C x - A (B x)||_2 / (||A||_F ||B||_F ||x||_2), which bounds the normwise error from
// below and is NaN when C holds a NaN or an infinity. Computed in double for any T.
template <typename T>
double freivalds_residual(const Shape &shape, const T *a, const T *b, const T *c,
                          std::span<const double> x, double norm_a, double norm_b);

// `error <= tolerance`, with NaN failing.
inline bool within_tolerance(double error, double tolerance) { return error <= tolerance; }

}  // namespace hpcreward
