#include "bench_node/harness.hpp"

#include <algorithm>
#include <atomic>
#include <memory>

#include "bench_node/gemm_check.hpp"
#include "bench_node/monotonic_clock.hpp"
#include "bench_node/reference_gemm.hpp"
#include "bench_node/statistics.hpp"
#include "common/number_text.hpp"

namespace hpcreward {

namespace {

// Freivalds' check of the output of one warm-up or timed call.
template <typename T>
Verdict check_call(Operands<T> &operands, Rng &check_rng, double tolerance,
                   const std::string &what) {
  if (Verdict memory = operands.check_memory("in " + what); !memory.ok()) return memory;
  std::vector<double> x(static_cast<std::size_t>(operands.shape().n));
  fill_uniform(std::span<double>(x), check_rng);
  const double residual =
      freivalds_residual(operands.shape(), operands.a_data(), operands.b_data(),
                         operands.c().data(), x, operands.norm_a(), operands.norm_b());
  if (!within_tolerance(residual, tolerance))
    return {Status::wrong_answer, what + " gave a wrong result (residual " +
                                      number_text(residual, 3) + " > tolerance " +
                                      number_text(tolerance, 3) + ")"};
  return {};
}

}  // namespace

template <typename T>
Verdict verify_shape(MatmulFn<T> matmul, const Shape &shape, const HarnessConfig &config,
                     std::uint64_t stream, double &max_error) {
  Operands<T> operands(shape, derive_seed(config.check_seed, stream));
  Rng rng(derive_seed(config.seed, stream));
  const std::string where = "at " + to_string(shape);
  // The second call reuses the buffers with fresh values: a candidate that keys a cache
  // on its pointers replays a stale result here, whatever the timing loop later does.
  for (int call = 1; call <= kVerifyCallsPerShape; ++call) {
    operands.refill(rng);
    if (config.progress) config.progress->mark();
    operands.call(matmul);
    const std::string which = call == 1 ? where : where + " (same buffers, new values)";
    if (Verdict memory = operands.check_memory(which); !memory.ok()) return memory;
    std::vector<T> reference(operands.c().size());
    reference_gemm(shape, operands.a().data(), operands.b().data(), reference.data());
    if (!all_finite(operands.c()))
      return {Status::wrong_answer, "output contains NaN or Inf " + which};
    const double error = normwise_error(operands.c(), std::span<const T>(reference),
                                        operands.norm_a(), operands.norm_b());
    max_error = std::max(max_error, error);
    if (!within_tolerance(error, config.tolerance))
      return {Status::wrong_answer, "wrong result " + which + ": relative error " +
                                        number_text(error, 3) + " > tolerance " +
                                        number_text(config.tolerance, 3)};
  }
  return {};
}

template <typename T>
Measurement run_harness(MatmulFn<T> matmul, const HarnessConfig &config) {
  Measurement measurement;
  auto fail = [&](const Verdict &verdict) {
    measurement.status = verdict.status;
    measurement.reason = verdict.reason;
    return measurement;
  };

  // Full checks: the nominal shape first, then every check shape.
  const double verify_start = monotonic_seconds();
  std::vector<Shape> shapes{config.nominal};
  shapes.insert(shapes.end(), config.check_shapes.begin(), config.check_shapes.end());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    Verdict verdict = verify_shape(matmul, shapes[i], config, i + 1, measurement.max_error);
    measurement.verify_s = monotonic_seconds() - verify_start;
    if (!verdict.ok()) return fail(verdict);
  }

  // Timing at the nominal shape over a ring of buffer sets, fresh values every call.
  const double time_start = monotonic_seconds();
  std::vector<std::unique_ptr<Operands<T>>> ring;
  for (int i = 0; i < kTimingRingSize; ++i)
    ring.push_back(std::make_unique<Operands<T>>(
        config.nominal, derive_seed(config.check_seed, 100 + static_cast<std::uint64_t>(i))));
  Rng input_rng(derive_seed(config.seed, 0x71de));
  Rng check_rng(derive_seed(config.check_seed, 0xf4e1));
  std::size_t next = 0;
  auto next_operands = [&]() -> Operands<T> & {
    Operands<T> &operands = *ring[next];
    next = (next + 1) % ring.size();
    operands.refill(input_rng);  // outside the timed region, like the progress mark
    if (config.progress) config.progress->mark();
    return operands;
  };

  // Warm-up: untimed for the reward, but every output is still checked; its call times only
  // decide when it ends (WarmupRule).
  const WarmupRule warmup(config.timing);
  std::vector<double> warmup_call_s;
  do {
    Operands<T> &operands = next_operands();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const double start = monotonic_seconds();
    operands.call(matmul);
    const double stop = monotonic_seconds();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    warmup_call_s.push_back(stop - start);
    Verdict verdict = check_call(operands, check_rng, config.tolerance,
                                 "warm-up call " + std::to_string(warmup_call_s.size()));
    if (!verdict.ok()) {
      measurement.time_s = monotonic_seconds() - time_start;
      return fail(verdict);
    }
  } while (!warmup.done(warmup_call_s, monotonic_seconds() - time_start));

  const StoppingRule stopping(config.timing);
  std::vector<double> samples;
  const double loop_start = monotonic_seconds();
  for (;;) {
    Operands<T> &operands = next_operands();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const double start = monotonic_seconds();
    operands.call(matmul);
    const double stop = monotonic_seconds();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    samples.push_back(stop - start);
    Verdict verdict = check_call(operands, check_rng, config.tolerance,
                                 "timed call " + std::to_string(samples.size()));
    if (!verdict.ok()) {
      measurement.time_s = monotonic_seconds() - time_start;
      return fail(verdict);
    }
    if (stopping.done(samples, monotonic_seconds() - loop_start)) break;
  }
  measurement.time_s = monotonic_seconds() - time_start;

  const SampleSummary summary = summarize(samples);
  measurement.status = Status::ok;
  measurement.reason.clear();
  measurement.reps = summary.count;
  measurement.median_s = summary.median;
  measurement.min_s = summary.min;
  measurement.iqr_s = summary.iqr();
  measurement.cv = summary.cv();
  measurement.gflops = summary.median > 0 ? config.nominal.flops() / summary.median / 1e9 : 0;
  return measurement;
}

template Verdict verify_shape<double>(MatmulFn<double>, const Shape &, const HarnessConfig &,
                                      std::uint64_t, double &);
template Verdict verify_shape<float>(MatmulFn<float>, const Shape &, const HarnessConfig &,
                                     std::uint64_t, double &);
template Measurement run_harness<double>(MatmulFn<double>, const HarnessConfig &);
template Measurement run_harness<float>(MatmulFn<float>, const HarnessConfig &);

}  // namespace hpcreward
