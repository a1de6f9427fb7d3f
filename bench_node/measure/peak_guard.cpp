#include "bench_node/measure/peak_guard.hpp"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cstdio>
#include <thread>
#include <tuple>
#include <vector>

#include "bench_node/process/monotonic_clock.hpp"
#include "bench_node/measure/random_fill.hpp"

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

// Twelve independent FMA chains hide the FMA latency on every current x86 core; the inner
// loops are unrolled so the chains live in registers. The sum of every chain is returned so
// the compiler keeps them all.
constexpr int kChains = 12;
constexpr long kFmaIterations = 4'000'000;

__attribute__((target("avx512f"))) double chains512(long iterations) {
  __m512d d[kChains];
  __m512 s[kChains];
  for (int c = 0; c < kChains; ++c) {
    d[c] = _mm512_set1_pd(1.0 + c);
    s[c] = _mm512_set1_ps(1.0f + static_cast<float>(c));
  }
  const __m512d md = _mm512_set1_pd(0.999999), ad = _mm512_set1_pd(1e-7);
  for (long i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) d[c] = _mm512_fmadd_pd(d[c], md, ad);
  const __m512 ms = _mm512_set1_ps(0.9999f), as = _mm512_set1_ps(1e-5f);
  for (long i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) s[c] = _mm512_fmadd_ps(s[c], ms, as);
  alignas(64) double lanes_d[8];
  alignas(64) float lanes_s[16];
  double sum = 0;
  for (int c = 0; c < kChains; ++c) {
    _mm512_store_pd(lanes_d, d[c]);
    _mm512_store_ps(lanes_s, s[c]);
    sum += lanes_d[0] + lanes_s[0];
  }
  return sum;
}

__attribute__((target("avx2,fma"))) double chains256(long iterations) {
  __m256d d[kChains];
  __m256 s[kChains];
  for (int c = 0; c < kChains; ++c) {
    d[c] = _mm256_set1_pd(1.0 + c);
    s[c] = _mm256_set1_ps(1.0f + static_cast<float>(c));
  }
  const __m256d md = _mm256_set1_pd(0.999999), ad = _mm256_set1_pd(1e-7);
  for (long i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) d[c] = _mm256_fmadd_pd(d[c], md, ad);
  const __m256 ms = _mm256_set1_ps(0.9999f), as = _mm256_set1_ps(1e-5f);
  for (long i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) s[c] = _mm256_fmadd_ps(s[c], ms, as);
  alignas(32) double lanes_d[4];
  alignas(32) float lanes_s[8];
  double sum = 0;
  for (int c = 0; c < kChains; ++c) {
    _mm256_store_pd(lanes_d, d[c]);
    _mm256_store_ps(lanes_s, s[c]);
    sum += lanes_d[0] + lanes_s[0];
  }
  return sum;
}

}  // namespace

std::pair<double, double> measure_fma_peak(int threads) {
  double (*chains)(long) = nullptr;
  double lanes_f64 = 0;
  if (__builtin_cpu_supports("avx512f")) {
    chains = chains512;
    lanes_f64 = 8;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    chains = chains256;
    lanes_f64 = 4;
  } else {
    return {0, 0};
  }
  threads = std::max(1, threads);
  // Each call runs the f64 chains, then the f32 chains, for the same number of iterations;
  // f32 vectors hold twice the lanes, and both kinds issue at the same rate.
  double best_seconds = 0;
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<double> sinks(static_cast<std::size_t>(threads));
    std::vector<std::thread> team;
    const double start = monotonic_seconds();
    for (int t = 0; t < threads; ++t)
      team.emplace_back([&sinks, chains, t] { sinks[static_cast<std::size_t>(t)] = chains(kFmaIterations); });
    for (std::thread &thread : team) thread.join();
    const double seconds = monotonic_seconds() - start;
    if (best_seconds == 0 || seconds < best_seconds) best_seconds = seconds;
  }
  // Per thread: kChains * lanes * 2 flops per iteration, for f64 and then for f32 (2x lanes).
  const double f64_flops = 2.0 * kChains * lanes_f64 * static_cast<double>(kFmaIterations) * threads;
  const double f32_flops = 2.0 * f64_flops;
  // Both halves issue the same number of FMA instructions, so each took half the time.
  const double half = best_seconds / 2.0;
  return {f64_flops / half / 1e9, f32_flops / half / 1e9};
}

PeakGflops measure_blas_peak(int threads) {
  openblas_set_num_threads(std::max(1, threads));
  PeakGflops peak;
  peak.f64 = best_gflops<double>([](int n, const double *a, const double *b, double *c) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
  });
  peak.f32 = best_gflops<float>([](int n, const float *a, const float *b, float *c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  });
  std::tie(peak.fma_f64, peak.fma_f32) = measure_fma_peak(threads);
  return peak;
}

Measurement apply_peak_guard(Measurement measurement, Precision precision, const PeakGflops &peak,
                             double margin) {
  const double limit = margin * peak.ceiling(precision);
  if (measurement.status != Status::ok || limit <= 0 || measurement.gflops <= limit)
    return measurement;
  char reason[256];
  std::snprintf(reason, sizeof reason,
                "tampering detected: %.1f GFLOPS is above this rank's highest measured ceiling (OpenBLAS "
                "%s %d^3: %.1f GFLOPS, FMA units: %.1f GFLOPS; margin %.2f)",
                measurement.gflops, precision == Precision::f64 ? "dgemm" : "sgemm", kPeakSize,
                peak.of(precision), peak.fma_of(precision), margin);
  measurement.status = Status::forbidden;
  measurement.reason = reason;
  return measurement;
}

Measurement PeakGuard::apply(Measurement measurement, Precision precision) {
  const auto above = [&] {
    return measurement.status == Status::ok && margin_ > 0 && peak_.ceiling(precision) > 0 &&
           measurement.gflops > margin_ * peak_.ceiling(precision);
  };
  for (int round = 0; round < remeasures_ && above() && remeasure_; ++round) {
    const auto [f64, f32] = remeasure_();
    peak_.fma_f64 = std::max(peak_.fma_f64, f64);
    peak_.fma_f32 = std::max(peak_.fma_f32, f32);
  }
  return apply_peak_guard(std::move(measurement), precision, peak_, margin_);
}

}  // namespace hpcreward
