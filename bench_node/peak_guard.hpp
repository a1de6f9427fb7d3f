#pragma once
// The rank's measured peak, and the rule that no candidate may report more. A result above
// what OpenBLAS reaches on the same cores is a broken clock or a gamed measurement, never
// a fast kernel (DESIGN.md "Measuring honestly").
#include "common/messages.hpp"
#include "common/problem.hpp"

namespace hpcreward {

struct PeakGflops {
  double f64 = 0;  // OpenBLAS dgemm, best of several calls at kPeakSize^3
  double f32 = 0;  // OpenBLAS sgemm, likewise
  double of(Precision precision) const { return precision == Precision::f64 ? f64 : f32; }
};

inline constexpr int kPeakSize = 1024;

// Runs OpenBLAS with `threads` threads on this process's CPUs (the rank's share).
PeakGflops measure_blas_peak(int threads);

// An `ok` measurement above margin x peak becomes `forbidden`; anything else is unchanged.
// A peak of 0 (not measured) disables the guard.
Measurement apply_peak_guard(Measurement measurement, Precision precision, const PeakGflops &peak,
                             double margin);

}  // namespace hpcreward
