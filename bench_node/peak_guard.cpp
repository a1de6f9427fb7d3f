#include "bench_node/peak_guard.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "bench_node/monotonic_clock.hpp"
#include "bench_node/random_fill.hpp"

namespace hpcreward {
namespace {

template <typename T, typename Gemm>
double best_gflops(Gemm gemm) {
  constexpr int n = kPeakSize;
  std::vector<T> a(std::size_t{n} * n), b(a.size()), c(a.size());
  Rng rng(12345);
  fill_uniform(std::span<T>(a), rng);
  fill_uniform(std::span<T>(b), rng);
  gemm(n, a.data(), b.data(), c.data());  // warm-up: thread team, page faults, caches
  double best = 0;
  for (int call = 0; call < 5; ++call) {
    const double start = monotonic_seconds();
    gemm(n, a.data(), b.data(), c.data());
    const double seconds = monotonic_seconds() - start;
    best = std::max(best, 2.0 * n * n * n / seconds / 1e9);
  }
  return best;
}

}  // namespace

PeakGflops measure_blas_peak(int threads) {
  openblas_set_num_threads(std::max(1, threads));
  PeakGflops peak;
  peak.f64 = best_gflops<double>([](int n, const double *a, const double *b, double *c) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
  });
  peak.f32 = best_gflops<float>([](int n, const float *a, const float *b, float *c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  });
  return peak;
}

Measurement apply_peak_guard(Measurement measurement, Precision precision, const PeakGflops &peak,
                             double margin) {
  const double limit = margin * peak.of(precision);
  if (measurement.status != Status::ok || limit <= 0 || measurement.gflops <= limit)
    return measurement;
  char reason[256];
  std::snprintf(reason, sizeof reason,
                "tampering detected: %.1f GFLOPS is above this rank's measured peak (OpenBLAS "
                "%s %d^3: %.1f GFLOPS, margin %.2f)",
                measurement.gflops, precision == Precision::f64 ? "dgemm" : "sgemm", kPeakSize,
                peak.of(precision), margin);
  measurement.status = Status::forbidden;
  measurement.reason = reason;
  return measurement;
}

}  // namespace hpcreward
