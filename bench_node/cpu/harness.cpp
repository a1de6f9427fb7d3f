#include "bench_node/cpu/harness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "bench_node/cpu/gemm_check.hpp"
#include "bench_node/process/monotonic_clock.hpp"
#include "bench_node/measure/random_fill.hpp"
#include "bench_node/cpu/reference_gemm.hpp"
#include "bench_node/measure/residual_bound.hpp"
#include "bench_node/measure/statistics.hpp"
#include "common/number_text.hpp"

namespace hpcreward {

namespace {

template <typename T>
constexpr Precision precision_of() {
  return std::is_same_v<T, double> ? Precision::f64 : Precision::f32;
}

// "C[i][j]: <got> instead of <expected>" for element `index` of a product of `shape`: a wrong
// answer names where it is wrong, for whoever fixes the code (the model's feedback too).
template <typename T>
std::string element_text(std::size_t index, const Shape &shape, T got, T expected) {
  return element_name(index, shape) + ": " + number_text(double(got), 4) + " instead of " +
         number_text(double(expected), 4);
}

template <typename T>
class Harness {
 public:
  Harness(CandidateCalls &checks, CandidateCalls &timed, const HarnessConfig &config)
      : checks_(checks),
        timed_(timed),
        config_(config),
        bound_(residual_bound(precision_of<T>(), Language::c, config.nominal, row_residual_roundoff<T>())) {}

  Measurement run();

 private:
  Verdict verify_shape(const Shape &shape, double &max_error);
  // Fresh input values and a poisoned output, one call, then guard zones and inputs checked.
  Verdict call(CandidateCalls &calls, Operands<T> &operands, const std::string &what, double *seconds);
  // Every output passes on its own; a timed one's (row, class) ratios also join `timed` (null
  // for warm-up calls, which decide no reward, so an honest warm-up cannot dilute them).
  Verdict check_residual(Operands<T> &operands, const std::string &what, ResidualPool *timed);
  // The most wrong element of the output, against OpenBLAS's product: only once a check failed.
  std::string most_wrong(Operands<T> &operands);

  CandidateCalls &checks_;  // the full checks
  CandidateCalls &timed_;   // warm-up and timed calls (the same object, or another executor)
  const HarnessConfig &config_;
  const ResidualBound bound_;
};

template <typename T>
Verdict Harness<T>::call(CandidateCalls &calls, Operands<T> &operands, const std::string &what, double *seconds) {
  Rng inputs(kernel_random_u64());  // known to no one before this call
  operands.refill(inputs);
  if (config_.progress) config_.progress->mark();
  const CallOutcome outcome = calls.call(operands.shape(), operands.a_given(), operands.b_given(), operands.c_given());
  if (!outcome.verdict.ok()) return outcome.verdict;
  if (seconds) *seconds = outcome.seconds;
  return operands.check_memory(what);
}

template <typename T>
Verdict Harness<T>::check_residual(Operands<T> &operands, const std::string &what, ResidualPool *timed) {
  // The weights are drawn after the call returned: nothing the candidate saw predicts them.
  Rng secret(kernel_random_u64());
  const Shape &shape = operands.shape();
  std::vector<double> weights(static_cast<std::size_t>(shape.n));
  RowResidual residual;
  for (int batch = 0; batch < shape.batch; ++batch) {
    for (double &weight : weights) {
      const double u = secret.uniform();
      weight = u < 0 ? u * 0.75 - 0.25 : u * 0.75 + 0.25;
    }
    residual.add(row_residual(shape, operands.a(batch).data(), operands.b(batch).data(), operands.c(batch).data(),
                              std::span<const double>(weights), bound_),
                 static_cast<std::size_t>(batch) * shape.m);
  }
  // Not finite: a NaN or an infinity in C, or values so large that C x overflowed.
  if (!residual.finite)
    return {Status::wrong_answer, what + " left values in C that are NaN, infinite or too large to check; most wrong at " +
                                      most_wrong(operands)};
  if (residual.failing_rows > 0)
    return {Status::wrong_answer, what + " gave a wrong result: " + std::to_string(residual.failing_rows) +
                                      " rows fail the residual check (first " +
                                      row_name(residual.first_failing_row, operands.shape()) + ", worst " +
                                      number_text(residual.worst_ratio, 3) + " > " + number_text(bound_.row, 3) +
                                      " of an honest error's scale); most wrong at " + most_wrong(operands)};
  if (residual.normwise > residual.normwise_bound(bound_))
    return {Status::wrong_answer, what + " gave a wrong result (normwise residual " +
                                      number_text(residual.normwise, 3) + " > " +
                                      number_text(residual.normwise_bound(bound_), 3) + "); most wrong at " +
                                      most_wrong(operands)};
  if (timed) timed->add(residual.ratio_sq, residual.pairs);
  return {};
}

template <typename T>
std::string Harness<T>::most_wrong(Operands<T> &operands) {
  const Shape &shape = operands.shape();
  std::vector<T> reference(c_elements(shape));
  std::string text;
  double worst = -1;
  for (int batch = 0; batch < shape.batch; ++batch) {
    reference_gemm(shape, operands.a(batch).data(), operands.b(batch).data(), reference.data());
    const std::span<const T> c = operands.c(batch);
    const std::size_t i = most_wrong_element(c, std::span<const T>(reference));
    double difference = std::fabs(double(c[i]) - double(reference[i]));
    if (std::isnan(difference)) difference = std::numeric_limits<double>::infinity();
    if (difference > worst) {
      worst = difference;
      text = element_text(static_cast<std::size_t>(batch) * c.size() + i, shape, c[i], reference[i]);
    }
    if (std::isinf(worst)) break;  // the first NaN or infinity
  }
  return text;
}

template <typename T>
Verdict Harness<T>::verify_shape(const Shape &shape, double &max_error) {
  Operands<T> operands(shape, config_.layout, checks_.memory());
  const std::string where = "at " + to_string(shape);
  // The second call reuses the buffers with fresh values: a candidate that keys a cache
  // on its pointers replays a stale result here, whatever the timing loop later does.
  for (int call = 1; call <= kVerifyCallsPerShape; ++call) {
    const std::string which = call == 1 ? where : where + " (same buffers, new values)";
    if (Verdict verdict = this->call(checks_, operands, which, nullptr); !verdict.ok()) return verdict;
    // Product by product: a batch that skips one product is as wrong as that product.
    std::vector<T> reference(c_elements(shape));
    for (int batch = 0; batch < shape.batch; ++batch) {
      const std::string product = shape.batch > 1 ? " (product " + std::to_string(batch) + ")" : "";
      reference_gemm(shape, operands.a(batch).data(), operands.b(batch).data(), reference.data());
      const std::span<const T> c = operands.c(batch);
      Shape one = shape;
      one.batch = 1;  // the product is named already
      const std::size_t worst = most_wrong_element(c, std::span<const T>(reference));
      if (!all_finite(c)) {
        max_error = std::numeric_limits<double>::infinity();
        return {Status::wrong_answer, "output contains NaN or Inf " + which + product + ": " +
                                          element_text(worst, one, c[worst], reference[worst])};
      }
      const double error = normwise_error(c, std::span<const T>(reference), operands.norm_a(batch),
                                          operands.norm_b(batch));
      max_error = std::max(max_error, error);
      if (!within_tolerance(error, config_.tolerance))
        return {Status::wrong_answer, "wrong result " + which + product + ": relative error " + number_text(error, 3) +
                                          " > tolerance " + number_text(config_.tolerance, 3) + "; most wrong at " +
                                          element_text(worst, one, c[worst], reference[worst])};
    }
  }
  return {};
}

template <typename T>
Measurement Harness<T>::run() {
  Measurement measurement;
  auto fail = [&](const Verdict &verdict) {
    measurement.status = verdict.status;
    measurement.reason = verdict.reason;
    return measurement;
  };

  // Full checks: the nominal shape first, then every check shape.
  const double verify_start = monotonic_seconds();
  std::vector<Shape> shapes{config_.nominal};
  shapes.insert(shapes.end(), config_.check_shapes.begin(), config_.check_shapes.end());
  for (const Shape &shape : shapes) {
    Verdict verdict = verify_shape(shape, measurement.max_error);
    measurement.verify_s = monotonic_seconds() - verify_start;
    if (!verdict.ok()) return fail(verdict);
  }

  // Timing at the nominal shape over a ring of buffer sets, fresh values every call.
  const double time_start = monotonic_seconds();
  std::vector<std::unique_ptr<Operands<T>>> ring;
  for (int i = 0; i < kTimingRingSize; ++i)
    ring.push_back(std::make_unique<Operands<T>>(config_.nominal, config_.layout, timed_.memory()));
  std::size_t next = 0;
  ResidualPool timed_pool;
  auto timed_call = [&](const std::string &what, double &seconds, ResidualPool *pool) -> Verdict {
    Operands<T> &operands = *ring[next];
    next = (next + 1) % ring.size();
    if (Verdict verdict = call(timed_, operands, "in " + what, &seconds); !verdict.ok()) return verdict;
    return check_residual(operands, what, pool);
  };

  // Warm-up: untimed for the reward, but every output is still checked; its call times only
  // decide when it ends (WarmupRule).
  const WarmupRule warmup(config_.timing);
  std::vector<double> warmup_call_s;
  do {
    double seconds = 0;
    Verdict verdict = timed_call("warm-up call " + std::to_string(warmup_call_s.size() + 1), seconds, nullptr);
    if (!verdict.ok()) {
      measurement.time_s = monotonic_seconds() - time_start;
      return fail(verdict);
    }
    warmup_call_s.push_back(seconds);
  } while (!warmup.done(warmup_call_s, monotonic_seconds() - time_start));

  const StoppingRule stopping(config_.timing);
  std::vector<double> samples;
  const double loop_start = monotonic_seconds();
  for (;;) {
    double seconds = 0;
    Verdict verdict = timed_call("timed call " + std::to_string(samples.size() + 1), seconds, &timed_pool);
    if (!verdict.ok()) {
      measurement.time_s = monotonic_seconds() - time_start;
      return fail(verdict);
    }
    samples.push_back(seconds);
    if (stopping.done(samples, monotonic_seconds() - loop_start, timed_pool.calls_needed())) break;
  }
  measurement.time_s = monotonic_seconds() - time_start;
  if (!timed_pool.ok(bound_))
    return fail({Status::wrong_answer, "the timed calls together fail the residual check (normwise " +
                                           number_text(timed_pool.normwise(), 3) + " > " +
                                           number_text(normwise_bound(bound_, timed_pool.pairs), 3) + " over " +
                                           number_text(timed_pool.pairs, 6) + " rows and classes)"});

  const SampleSummary summary = summarize(samples);
  measurement.status = Status::ok;
  measurement.reason.clear();
  measurement.reps = summary.count;
  measurement.median_s = summary.median;
  measurement.min_s = summary.min;
  measurement.iqr_s = summary.iqr();
  measurement.cv = summary.cv();
  measurement.gflops = summary.median > 0 ? config_.nominal.flops() / summary.median / 1e9 : 0;
  return measurement;
}

}  // namespace

template <typename T>
std::size_t harness_check_bytes(const HarnessConfig &config) {
  std::size_t bytes = Operands<T>::memory_bytes(config.nominal);
  for (const Shape &shape : config.check_shapes) bytes += Operands<T>::memory_bytes(shape);
  return bytes;
}

template <typename T>
std::size_t harness_timed_bytes(const HarnessConfig &config) {
  return kTimingRingSize * Operands<T>::memory_bytes(config.nominal);
}

template <typename T>
std::size_t harness_operand_bytes(const HarnessConfig &config) {
  return harness_check_bytes<T>(config) + harness_timed_bytes<T>(config);
}

template <typename T>
Measurement run_harness(CandidateCalls &checks, CandidateCalls &timed, const HarnessConfig &config) {
  Harness<T> harness(checks, timed, config);
  return harness.run();
}

template <typename T>
Measurement run_harness(CandidateCalls &calls, const HarnessConfig &config) {
  return run_harness<T>(calls, calls, config);
}

template Measurement run_harness<double>(CandidateCalls &, const HarnessConfig &);
template Measurement run_harness<float>(CandidateCalls &, const HarnessConfig &);
template Measurement run_harness<double>(CandidateCalls &, CandidateCalls &, const HarnessConfig &);
template Measurement run_harness<float>(CandidateCalls &, CandidateCalls &, const HarnessConfig &);
template std::size_t harness_operand_bytes<double>(const HarnessConfig &);
template std::size_t harness_operand_bytes<float>(const HarnessConfig &);
template std::size_t harness_check_bytes<double>(const HarnessConfig &);
template std::size_t harness_check_bytes<float>(const HarnessConfig &);
template std::size_t harness_timed_bytes<double>(const HarnessConfig &);
template std::size_t harness_timed_bytes<float>(const HarnessConfig &);

}  // namespace hpcreward
