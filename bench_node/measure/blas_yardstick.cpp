#include "bench_node/measure/blas_yardstick.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <span>
#include <vector>

#include "bench_node/measure/random_fill.hpp"
#include "bench_node/measure/yardstick_timing.hpp"
#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward {
namespace {

// Buffer sets as the harness rotates them: up to 8 (fewer for large problems).
constexpr std::size_t kRingBytes = 256u << 20;
constexpr int kMaxSets = 8;

template <typename T>
struct OperandSet {
  std::vector<T> a, b, c;
};

void gemm(const Shape &s, const Layout &layout, const double *a, const double *b, double *c) {
  cblas_dgemm(CblasRowMajor, layout.transpose_a ? CblasTrans : CblasNoTrans,
              layout.transpose_b ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0, a, layout.transpose_a ? s.m : s.k, b,
              layout.transpose_b ? s.k : s.n, 0.0, c, s.n);
}

void gemm(const Shape &s, const Layout &layout, const float *a, const float *b, float *c) {
  cblas_sgemm(CblasRowMajor, layout.transpose_a ? CblasTrans : CblasNoTrans,
              layout.transpose_b ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0f, a, layout.transpose_a ? s.m : s.k,
              b, layout.transpose_b ? s.k : s.n, 0.0f, c, s.n);
}

template <typename T>
YardstickTiming measure(const Problem &problem) {
  const Shape &shape = problem.nominal;
  const std::size_t batch = static_cast<std::size_t>(shape.batch);
  const std::size_t set_bytes = sizeof(T) * batch * (a_elements(shape) + b_elements(shape) + c_elements(shape));
  const int sets = static_cast<int>(std::clamp<std::size_t>(kRingBytes / std::max<std::size_t>(set_bytes, 1), 1, kMaxSets));
  std::vector<OperandSet<T>> ring(sets);
  Rng rng(20261127);
  for (OperandSet<T> &set : ring) {
    set.a.resize(batch * a_elements(shape));
    set.b.resize(batch * b_elements(shape));
    set.c.resize(batch * c_elements(shape));
    fill_uniform(std::span<T>(set.a), rng);
    fill_uniform(std::span<T>(set.b), rng);
  }
  const auto call = [&](OperandSet<T> &set) {
    for (std::size_t q = 0; q < batch; ++q)
      gemm(shape, problem.layout, set.a.data() + q * a_elements(shape), set.b.data() + q * b_elements(shape),
           set.c.data() + q * c_elements(shape));
  };
  std::size_t next = 0;
  return time_yardstick(
      [&] {
        OperandSet<T> &set = ring[next++ % ring.size()];  // the first calls also start the thread team
        const double before = monotonic_seconds();
        call(set);
        return monotonic_seconds() - before;
      },
      shape.flops());
}

}  // namespace

YardstickTiming openblas_timing(const Problem &problem, int threads) {
  if (problem.language != Language::c) return {};
  openblas_set_num_threads(std::max(1, threads));
  if (problem.precision == Precision::f64) return measure<double>(problem);
  if (problem.precision == Precision::f32) return measure<float>(problem);
  return {};
}

CpuYardsticks::CpuYardsticks(int threads, std::string log_prefix, double refresh_s, Clock clock, Measure measure)
    : threads_(threads),
      log_prefix_(std::move(log_prefix)),
      refresh_s_(refresh_s),
      clock_(clock ? std::move(clock) : Clock(monotonic_seconds)),
      measure_(std::move(measure)) {}

Yardsticks CpuYardsticks::of(const Problem &problem) {
  const double now = clock_();
  auto found = measured_.find(problem.id);
  if (found != measured_.end() && now - found->second.measured_at < refresh_s_) return found->second.yardsticks;
  const double start = monotonic_seconds();
  const YardstickTiming timing = measure_(problem, threads_);
  Figure figure{{.openblas = timing.gflops}, now};
  std::fprintf(stderr,
               "%syardstick of %s (%s, %s)%s: OpenBLAS %.1f GFLOPS with %d thread%s (median of %d calls, "
               "interquartile range %.1f%%), measured in %.2f s\n",
               log_prefix_.c_str(), problem.id.c_str(), to_string(problem.nominal).c_str(),
               to_string(problem.layout).c_str(), found == measured_.end() ? "" : " again", timing.gflops, threads_,
               threads_ == 1 ? "" : "s", timing.calls, 100 * timing.iqr, monotonic_seconds() - start);
  measured_[problem.id] = figure;
  return figure.yardsticks;
}

}  // namespace hpcreward
