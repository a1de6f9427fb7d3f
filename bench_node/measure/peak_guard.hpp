#pragma once
// The rank's measured ceilings, and the rule that no candidate may report more. A result
// above what the same cores can compute is a broken clock or a gamed measurement, never a
// fast kernel (docs/design.md "Measuring honestly"). Two ceilings are measured at rank start:
// OpenBLAS dgemm/sgemm (also the baseline of the best_fraction_of_blas rule), and the FMA
// throughput of the widest vector unit the CPU has. The guard uses the higher: an honest
// AVX-512 kernel at 256^3 (all in cache) can beat an OpenBLAS build whose kernels stop at
// AVX2, but no code can beat the FMA units.
#include <algorithm>
#include <functional>
#include <utility>

#include "common/messages.hpp"
#include "common/problem.hpp"

namespace hpcreward {

struct PeakGflops {
  double f64 = 0;  // OpenBLAS dgemm, best of several calls at kPeakSize^3
  double f32 = 0;  // OpenBLAS sgemm, likewise
  double fma_f64 = 0;  // independent FMA chains on every core, widest vectors (0: not measured)
  double fma_f32 = 0;
  double of(Precision precision) const { return precision == Precision::f64 ? f64 : f32; }
  double fma_of(Precision precision) const { return precision == Precision::f64 ? fma_f64 : fma_f32; }
  double ceiling(Precision precision) const { return std::max(of(precision), fma_of(precision)); }
};

inline constexpr int kPeakSize = 1024;

// Runs OpenBLAS, then the FMA loop, with `threads` threads on this process's CPUs (the
// rank's share).
PeakGflops measure_blas_peak(int threads);

// The FMA part alone: {f64, f32} GFLOPS of `threads` threads running independent FMA chains
// with AVX-512 if the CPU has it, else AVX2+FMA, else {0, 0}.
std::pair<double, double> measure_fma_peak(int threads);

// An `ok` measurement above margin x peak.ceiling() becomes `forbidden`; anything else is unchanged.
// A peak of 0 (not measured) disables the guard.
Measurement apply_peak_guard(Measurement measurement, Precision precision, const PeakGflops &peak,
                             double margin);

// The guard over a rank's life. A ceiling read once at start is noisy (a busy node, an SMT
// sibling busy at that moment: 33 to 56 GFLOPS between runs on one VM), and an honest kernel
// above a low reading would be refused. So a result above the ceiling has the FMA units
// measured again beside it, up to `remeasures` times; the ceiling is the highest reading so
// far (hardware is never faster than it is, so readings only err low), and only a result
// still above margin x that is refused. The measurement runs after the candidate's process
// is gone, so nothing of the candidate's can raise it.
class PeakGuard {
 public:
  using Remeasure = std::function<std::pair<double, double>()>;  // {f64, f32} FMA GFLOPS now

  PeakGuard(PeakGflops start, double margin, Remeasure remeasure, int remeasures = 3)
      : peak_(start), margin_(margin), remeasure_(std::move(remeasure)), remeasures_(remeasures) {}

  Measurement apply(Measurement measurement, Precision precision);
  const PeakGflops &peak() const { return peak_; }

 private:
  PeakGflops peak_;
  double margin_;
  Remeasure remeasure_;
  int remeasures_;
};

}  // namespace hpcreward
