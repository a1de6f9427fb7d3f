#include "bench_node/gpu/gpu_harness.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench_node/gpu/cublas_reference.hpp"
#include "bench_node/gpu/cuda_call.hpp"
#include "bench_node/gpu/device_kernels.hpp"
#include "bench_node/gpu/device_memory.hpp"
#include "bench_node/gpu/exported_device_memory.hpp"
#include "bench_node/gpu/gpu_executor.hpp"
#include "bench_node/process/monotonic_clock.hpp"
#include "bench_node/measure/random_fill.hpp"
#include "bench_node/measure/residual_bound.hpp"
#include "bench_node/measure/statistics.hpp"
#include "common/number_text.hpp"

namespace hpcreward::gpu {

bool patterned_inputs(Precision precision) { return precision == Precision::f32; }

namespace {

// A candidate's failure found by a check: becomes the Measurement.
struct Failure {
  Status status;
  std::string reason;
};

constexpr double kCalibrationWarmup_s = 0.03;

std::string at_shape(const Shape &shape) { return " at " + to_string(shape); }

// Bytes of A, B and C for every product of a shape.
std::size_t a_bytes(Precision precision, const Shape &shape) { return element_bytes(precision) * shape.batch * a_elements(shape); }
std::size_t b_bytes(Precision precision, const Shape &shape) { return element_bytes(precision) * shape.batch * b_elements(shape); }
std::size_t c_bytes(Precision precision, const Shape &shape) { return element_bytes(precision) * shape.batch * c_elements(shape); }

// Element `index` of an array of `precision` at `base`.
void *element_at(void *base, Precision precision, std::size_t index) {
  return static_cast<std::byte *>(base) + element_bytes(precision) * index;
}

// The operands the candidate is given, in the pool it shares: A, B, C with guard zones, each
// zone's pattern from a secret of its own. Untrusted after every call.
struct Operands {
  Operands(DeviceArena &arena, Precision precision, const Shape &shape)
      : a(arena, a_bytes(precision, shape), kernel_random_u64()),
        b(arena, b_bytes(precision, shape), kernel_random_u64()),
        c(arena, c_bytes(precision, shape), kernel_random_u64()) {}
  static std::size_t footprint(Precision precision, const Shape &shape) {
    return GuardedDeviceBuffer::footprint(a_bytes(precision, shape)) +
           GuardedDeviceBuffer::footprint(b_bytes(precision, shape)) +
           GuardedDeviceBuffer::footprint(c_bytes(precision, shape));
  }
  GuardedDeviceBuffer a, b, c;
};

// The measurer's own copies, in its own context: the pristine inputs the candidate's are
// copied from (laid out as the problem says), and C as it was when the call's clock stopped.
// Every check reads these, and a transposed operand's row-major original: the checks see
// every layout as row-major products.
struct Private {
  Private(Precision precision, const Layout &layout, const Shape &shape)
      : precision(precision), shape(shape), a(a_bytes(precision, shape)), b(b_bytes(precision, shape)),
        c(c_bytes(precision, shape)), a_row_major(layout.transpose_a ? a.bytes() : 0),
        b_row_major(layout.transpose_b ? b.bytes() : 0) {}
  // Product `batch`'s A (m x k), B (k x n) and C (m x n), row-major.
  void *product_a(int batch) {
    return element_at(a_row_major.bytes() > 0 ? a_row_major.get() : a.get(), precision, batch * a_elements(shape));
  }
  void *product_b(int batch) {
    return element_at(b_row_major.bytes() > 0 ? b_row_major.get() : b.get(), precision, batch * b_elements(shape));
  }
  void *product_c(int batch) { return element_at(c.get(), precision, batch * c_elements(shape)); }

  Precision precision;
  Shape shape;
  DeviceMemory a, b, c;
  DeviceMemory a_row_major, b_row_major;  // empty where the operand is given as it is
};

// A full check at one shape, made before the calibration: the measurer's inputs and cuBLAS's
// fp64 product and scale (|A||B|) of them. Making them keeps the GPU busy while the run before
// ends; verification is then the candidate's calls and the comparisons. The inputs are drawn
// as for any call, from a fresh secret, before the candidate is even loaded.
struct FullCheck {
  FullCheck(Precision precision, const Layout &layout, const Shape &checked)
      : shape(checked), own(precision, layout, checked),
        reference(sizeof(double) * checked.batch * c_elements(checked)),
        bound(sizeof(double) * checked.batch * c_elements(checked)) {}
  Shape shape;
  Private own;
  DeviceMemory reference, bound;
};

// Device-side scratch shared by every check: the tally, checksums, Freivalds vectors.
class CheckWorkspace {
 public:
  CheckWorkspace(int max_rows, int max_inner, int max_cols)
      : tally_(sizeof(DeviceTally)), sums_(4 * sizeof(unsigned long long)),
        x_(5 * sizeof(double) * max_cols), y_(2 * sizeof(double) * max_inner),
        z_(2 * sizeof(double) * max_rows), w_(2 * sizeof(double) * max_rows), classes_(sizeof(int) * max_cols) {}

  DeviceTally *reset_tally() {
    const DeviceTally fresh;
    cuda_call(cudaMemcpy(tally_.get(), &fresh, sizeof fresh, cudaMemcpyHostToDevice), "tally reset");
    return tally_.as<DeviceTally>();
  }
  DeviceTally read_tally() const {
    DeviceTally host;
    cuda_call(cudaMemcpy(&host, tally_.get(), sizeof host, cudaMemcpyDeviceToHost), "tally read");
    return host;
  }
  unsigned long long *sum(int index) const { return sums_.as<unsigned long long>() + index; }
  unsigned long long read_sum(int index) const {
    unsigned long long host = 0;
    cuda_call(cudaMemcpy(&host, sum(index), sizeof host, cudaMemcpyDeviceToHost), "checksum read");
    return host;
  }
  double *x() const { return x_.as<double>(); }
  double *y() const { return y_.as<double>(); }
  double *z() const { return z_.as<double>(); }
  double *w() const { return w_.as<double>(); }
  int *classes() const { return classes_.as<int>(); }

 private:
  DeviceMemory tally_, sums_, x_, y_, z_, w_, classes_;
};

class Harness {
 public:
  Harness(GpuExecutor &executor, ExportedDeviceMemory &pool, const GpuHarnessConfig &config, Cublas &cublas)
      : executor_(executor), pool_(pool.get(), pool.bytes()), config_(config), cublas_(cublas) {
    executor_.set_batched(config.layout.batched);
  }

  Measurement run();

 private:
  std::vector<FullCheck> make_full_checks();
  std::optional<Failure> verify(FullCheck &check, double &max_error);
  std::optional<Failure> call_checked(const Shape &shape, Operands &operands, Private &own, CheckWorkspace &work,
                                      GpuCallOutcome *clocks);
  // Every output passes on its own; a timed one's (row, class) ratios also join `timed` (null
  // for warm-up calls, which decide no reward, so an honest warm-up cannot dilute them).
  std::optional<Failure> residual_check(const Shape &shape, Private &own, CheckWorkspace &work, double &max_error,
                                        ResidualPool *timed);
  void fill_inputs(const Shape &shape, Private &own);
  CallSteps steps(const Shape &shape, Operands &operands, Private &own);

  void phase_ended(const char *phase) const {
    if (config_.phase_ended) config_.phase_ended(phase);
  }

  GpuExecutor &executor_;
  DeviceArena pool_;
  const GpuHarnessConfig &config_;
  Cublas &cublas_;
  DeviceMemory flush_;
};

std::size_t ring_size_for(const GpuHarnessConfig &config) {
  const std::size_t set_bytes = Operands::footprint(config.precision, config.nominal);
  return std::clamp<std::size_t>(config.ring_bytes / std::max<std::size_t>(set_bytes, 1), 2, 8);
}

// Values known to no one before this call: a fresh secret from the kernel for every fill, into
// the measurer's own buffers (copied into the pool inside the call's clock).
void Harness::fill_inputs(const Shape &shape, Private &own) {
  const bool patterned = patterned_inputs(config_.precision);
  const std::uint64_t secret = kernel_random_u64();
  for (int batch = 0; batch < shape.batch; ++batch) {  // every product its own pair of inputs
    const std::uint64_t seed = secret + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(batch);
    fill_operand(config_.precision, own.product_a(batch), shape.m, shape.k, seed, Operand::a, patterned);
    fill_operand(config_.precision, own.product_b(batch), shape.k, shape.n, seed, Operand::b, patterned);
  }
  // The operands as the candidate is given them: m x k A as k x m, k x n B as n x k.
  if (config_.layout.transpose_a)
    transpose(config_.precision, own.a_row_major.get(), own.a.get(), shape.m, shape.k, shape.batch);
  if (config_.layout.transpose_b)
    transpose(config_.precision, own.b_row_major.get(), own.b.get(), shape.k, shape.n, shape.batch);
  cuda_call(cudaStreamSynchronize(0), "filling the inputs");  // done before the call's window opens
}

// The measurer's device work inside a call's clock (gpu_executor_protocol.hpp): before the
// call, the inputs into the pool, C poisoned, L2 flushed; after it, C out of the pool. Both
// on the legacy stream, waited for.
CallSteps Harness::steps(const Shape &shape, Operands &operands, Private &own) {
  return {[this, &shape, &operands, &own] {
            cuda_call(cudaMemcpyAsync(operands.a.data(), own.a.get(), own.a.bytes(), cudaMemcpyDeviceToDevice, 0),
                      "copying A into the pool");
            cuda_call(cudaMemcpyAsync(operands.b.data(), own.b.get(), own.b.bytes(), cudaMemcpyDeviceToDevice, 0),
                      "copying B into the pool");
            fill_nan(config_.precision, operands.c.data(), shape.batch * c_elements(shape));
            if (config_.flush_l2 && flush_.bytes() > 0)
              cuda_call(cudaMemsetAsync(flush_.get(), 0, flush_.bytes(), 0), "L2 flush");
            cuda_call(cudaStreamSynchronize(0), "preparing the call");
          },
          [&operands, &own] {
            cuda_call(cudaMemcpyAsync(own.c.get(), operands.c.data(), own.c.bytes(), cudaMemcpyDeviceToDevice, 0),
                      "copying C out of the pool");
            cuda_call(cudaStreamSynchronize(0), "copying C out of the pool");
          }};
}

// One candidate call in the executor, with every check that needs no reference: guard zones
// and inputs left as they were given. The seconds are the executor's clock (gpu_executor.hpp).
std::optional<Failure> Harness::call_checked(const Shape &shape, Operands &operands, Private &own,
                                             CheckWorkspace &work, GpuCallOutcome *clocks) {
  cudaCtxResetPersistingL2Cache();  // belt and braces: the audit refuses windows
  const GpuCallOutcome outcome =
      executor_.call(config_.precision, shape, pool_.offset_of(operands.a.data()), pool_.offset_of(operands.b.data()),
                     pool_.offset_of(operands.c.data()), steps(shape, operands, own));
  if (!outcome.verdict.ok()) return Failure{outcome.verdict.status, outcome.verdict.reason};
  if (!outcome.exception.empty())
    return Failure{Status::runtime_error, "the candidate's call threw: " + outcome.exception};
  if (!outcome.cuda_error.empty())
    return Failure{Status::runtime_error, "CUDA error in the candidate's call: " + outcome.cuda_error};
  if (clocks) *clocks = outcome;

  unsigned long long *mismatches = work.sum(2);
  cuda_call(cudaMemsetAsync(mismatches, 0, sizeof *mismatches), "guard reset");
  operands.a.count_guard_mismatches(mismatches);
  operands.b.count_guard_mismatches(mismatches);
  operands.c.count_guard_mismatches(mismatches);
  checksum(operands.a.data(), operands.a.data_bytes(), work.sum(0));
  checksum(own.a.get(), own.a.bytes(), work.sum(1));
  cuda_call(cudaDeviceSynchronize(), "the guard and input checks");
  if (const unsigned long long changed = work.read_sum(2); changed != 0)
    return Failure{Status::runtime_error, "wrote outside its operands: " + std::to_string(changed) +
                                              " guard-zone bytes around A, B or C changed" + at_shape(shape)};
  if (work.read_sum(0) != work.read_sum(1)) return Failure{Status::wrong_answer, "modified its input A" + at_shape(shape)};
  checksum(operands.b.data(), operands.b.data_bytes(), work.sum(0));
  checksum(own.b.get(), own.b.bytes(), work.sum(1));
  cuda_call(cudaDeviceSynchronize(), "the input checks");
  if (work.read_sum(0) != work.read_sum(1)) return Failure{Status::wrong_answer, "modified its input B" + at_shape(shape)};
  return std::nullopt;
}

std::vector<FullCheck> Harness::make_full_checks() {
  std::vector<FullCheck> checks;
  checks.reserve(1 + config_.check_shapes.size());
  checks.emplace_back(config_.precision, config_.layout, config_.nominal);
  for (const Shape &checked : config_.check_shapes) checks.emplace_back(config_.precision, config_.layout, checked);
  for (FullCheck &check : checks) {
    fill_inputs(check.shape, check.own);
    const Shape &shape = check.shape;
    for (int batch = 0; batch < shape.batch; ++batch)
      cublas_.reference(config_.precision, check.own.product_a(batch), check.own.product_b(batch), shape.m, shape.n,
                        shape.k, check.reference.as<double>() + batch * c_elements(shape),
                        check.bound.as<double>() + batch * c_elements(shape));
  }
  cuda_call(cudaDeviceSynchronize(), "the references for verification");
  return checks;
}

// One call at the check's shape, on fresh guarded buffers, compared with cuBLAS element by
// element and normwise.
std::optional<Failure> Harness::verify(FullCheck &check, double &max_error) {
  const Shape &shape = check.shape;
  pool_.reset();
  Operands operands(pool_, config_.precision, shape);
  CheckWorkspace work(shape.m, shape.k, shape.n);
  if (auto failure = call_checked(shape, operands, check.own, work, nullptr)) return failure;
  phase_ended("verification: the candidate's calls");
  const std::size_t elements = shape.batch * c_elements(shape);
  DeviceTally *tally = work.reset_tally();
  compare_output(config_.precision, check.own.c.get(), check.reference.as<double>(), check.bound.as<double>(),
                 elements, config_.element_tolerance, tally);
  cuda_call(cudaDeviceSynchronize(), "comparison");
  const DeviceTally result = work.read_tally();
  phase_ended("verification: comparisons with cuBLAS");
  if (result.nonfinite != 0)
    return Failure{Status::wrong_answer, std::to_string(result.nonfinite) + " elements of C are NaN or inf, first " +
                                             element_name(result.first_violation, shape) + at_shape(shape)};
  const double normwise = result.ref_sq > 0 ? std::sqrt(result.error_sq / result.ref_sq) : 0;
  max_error = std::max(max_error, normwise);
  if (result.violations != 0)
    return Failure{Status::wrong_answer,
                   std::to_string(result.violations) + " elements of C differ from cuBLAS by more than " +
                       number_text(config_.element_tolerance) + " x (|A||B|)_ij, first " +
                       element_name(result.first_violation, shape) + at_shape(shape)};
  if (normwise > config_.tolerance)
    return Failure{Status::wrong_answer, "relative error " + number_text(normwise) + " exceeds " +
                                             number_text(config_.tolerance) + at_shape(shape)};
  return std::nullopt;
}

// The row-wise residual check (residual_bound.hpp): with a secret x drawn after the call, A (B x)
// must equal C x row by row within the error an honest computation at this precision makes.
std::optional<Failure> Harness::residual_check(const Shape &shape, Private &own, CheckWorkspace &work,
                                               double &max_error, ResidualPool *timed) {
  const ResidualBound bound = residual_bound(config_.precision, Language::cuda, shape, 0x1p-53, config_.accumulation);
  double *x = work.x(), *x_sq = x + shape.n, *norm = x + 2 * shape.n;
  double *x_class = x + 3 * shape.n, *x_class_sq = x + 4 * shape.n;
  double *y = work.y(), *y_sq = y + shape.k;
  double *z = work.z(), *z_sq = z + shape.m;
  double *w = work.w(), *w_sq = w + shape.m;
  DeviceTally *tally = work.reset_tally();
  std::vector<double> host_norm(shape.n);
  for (int batch = 0; batch < shape.batch; ++batch) {  // every product, a fresh x each
    const void *a = own.product_a(batch), *b = own.product_b(batch), *c = own.product_c(batch);
    column_norms(config_.precision, b, shape.k, shape.n, norm);
    fill_vector(x, x_sq, norm, shape.n, kernel_random_u64());
    // The columns' classes from their norms, on the host (n numbers), then one test per class;
    // on the patterned inputs a fresh secret choice of columns are classes of one each.
    cuda_call(cudaMemcpy(host_norm.data(), norm, sizeof(double) * shape.n, cudaMemcpyDeviceToHost), "column norms");
    int classes = 0;
    const int singles = patterned_inputs(config_.precision) ? kResidualSingleColumns : 0;
    const std::vector<int> column_class =
        residual_column_classes(host_norm, classes, singles, singles ? kernel_random_u64() : 0);
    cuda_call(cudaMemcpy(work.classes(), column_class.data(), sizeof(int) * shape.n, cudaMemcpyHostToDevice),
              "column classes");
    for (int target = 0; target < classes; ++target) {
      const bool whole = classes == 1;
      if (!whole) select_class(x, x_sq, work.classes(), target, x_class, x_class_sq, shape.n);
      const double *xc = whole ? x : x_class, *xc_sq = whole ? x_sq : x_class_sq;
      gemv(config_.precision, b, shape.k, shape.n, xc, xc_sq, y, y_sq);
      gemv(config_.precision, a, shape.m, shape.k, y, y_sq, z, z_sq);
      gemv(config_.precision, c, shape.m, shape.n, xc, xc_sq, w, w_sq);
      compare_residual(z, z_sq, w, shape.m, bound.row, tally, static_cast<unsigned long long>(batch) * shape.m);
    }
  }
  cuda_call(cudaDeviceSynchronize(), "residual check");
  const DeviceTally result = work.read_tally();
  if (result.nonfinite != 0)
    return Failure{Status::wrong_answer, "a timed call left NaN or inf in C (" +
                                             row_name(result.first_violation, shape) + ")" + at_shape(shape)};
  // error_sq sums the (row, class) ratios squared, ref_sq counts them (device_kernels.hpp).
  const double normwise = result.ref_sq > 0 ? std::sqrt(result.error_sq / result.ref_sq) : 0;
  const double normwise_limit = normwise_bound(bound, result.ref_sq);
  if (result.violations != 0)
    return Failure{Status::wrong_answer, "a timed call's output fails the randomized residual check in " +
                                             std::to_string(result.violations) + " (row, column class) pairs, first " +
                                             row_name(result.first_violation, shape) + " (worst " +
                                             number_text(result.worst_ratio) + " > " + number_text(bound.row) +
                                             " of an honest error's scale; normwise " + number_text(normwise) +
                                             ", bound " + number_text(normwise_limit) + ")" + at_shape(shape)};
  if (normwise > normwise_limit)
    return Failure{Status::wrong_answer, "a timed call's output fails the randomized residual check (normwise " +
                                             number_text(normwise) + " > " + number_text(normwise_limit) + ")" +
                                             at_shape(shape)};
  if (timed) timed->add(result.error_sq, result.ref_sq);
  max_error = std::max(max_error, normwise);
  return std::nullopt;
}

Measurement failed(const Failure &failure, double verify_s, double time_s, double max_error) {
  Measurement measurement = failed_measurement(failure.status, failure.reason);
  measurement.verify_s = verify_s;
  measurement.time_s = time_s;
  measurement.max_error = max_error;
  return measurement;
}

Measurement Harness::run() {
  double max_error = 0;
  const Shape &shape = config_.nominal;
  flush_ = DeviceMemory(config_.flush_l2 ? 2 * std::max<std::size_t>(config_.l2_bytes, 1 << 20) : 0);
  const auto stopped = [&](double verify_s) {
    return failed({Status::runtime_error, kGateClosedReason}, verify_s, 0, max_error);
  };

  // The full checks' references first: the GPU's warm-up begins with them, while the run
  // before this one may still be ending.
  const double warmup_start = monotonic_seconds();
  std::vector<FullCheck> full_checks = make_full_checks();
  phase_ended("references for verification");

  // The round trip first, before the candidate is loaded: nothing of it can slow it down.
  {
    pool_.reset();
    Operands operands(pool_, config_.precision, shape);
    Private own(config_.precision, config_.layout, shape);
    fill_inputs(shape, own);
    // The GPU's clocks up first, as they are during timed calls: an idle GPU switches between
    // the two contexts more slowly, which would loosen the bound on forged events. A staged run
    // keeps warming up until the run before it has ended (its executor's context gone), so
    // that nothing of it runs beside the calibration.
    GateWord quiet = config_.quiet ? GateWord::not_yet : GateWord::arrived;
    for (;;) {
      if (quiet == GateWord::not_yet) quiet = config_.quiet();
      if (quiet == GateWord::closed) return stopped(0);
      if (quiet == GateWord::arrived && monotonic_seconds() - warmup_start >= kCalibrationWarmup_s) break;
      cublas_.gemm(config_.precision, own.product_a(0), own.product_b(0), own.c.get(), shape.m, shape.n, shape.k);
      cuda_call(cudaDeviceSynchronize(), "warming the GPU up");
    }
    phase_ended("warm-up before calibration");
    if (Verdict verdict = executor_.calibrate(config_.precision, shape, pool_.offset_of(operands.a.data()),
                                              pool_.offset_of(operands.b.data()), pool_.offset_of(operands.c.data()),
                                              steps(shape, operands, own));
        !verdict.ok())
      return failed({verdict.status, "calibrating the GPU executor: " + verdict.reason}, 0, 0, 0);
  }
  phase_ended("calibration");
  if (config_.calibrated) config_.calibrated();
  if (config_.trace) {
    config_.trace->least_overhead_s = executor_.overhead().least_s;
    config_.trace->high_overhead_s = executor_.overhead().high_s;
  }
  if (Verdict verdict = executor_.load(); !verdict.ok()) return failed({verdict.status, verdict.reason}, 0, 0, 0);
  phase_ended("loading the candidate");

  // Full checks: one call at the nominal shape and at each check shape. A cache keyed on
  // pointers gains nothing there: the timing ring's buffer sets (the first of them where the
  // nominal check's buffers were) come back with new values, and every timed output is checked.
  const double verify_start = monotonic_seconds();
  for (FullCheck &check : full_checks)
    if (auto failure = verify(check, max_error))
      return failed(*failure, monotonic_seconds() - verify_start, 0, max_error);
  const double verify_s = monotonic_seconds() - verify_start;
  full_checks.clear();

  // Timing: a ring of buffer sets in the pool, new values before every call, every output
  // checked (warm-up calls too).
  const double time_start = monotonic_seconds();
  pool_.reset();
  std::vector<Operands> sets;
  const std::size_t ring = ring_size_for(config_);
  sets.reserve(ring);
  for (std::size_t i = 0; i < ring; ++i) sets.emplace_back(pool_, config_.precision, shape);
  Private own(config_.precision, config_.layout, shape);
  CheckWorkspace work(shape.m, shape.k, shape.n);
  phase_ended("timing buffers");
  std::size_t next_set = 0;
  ResidualPool timed_pool;
  const auto checked_call = [&](GpuCallOutcome &clocks, ResidualPool *pool) -> std::optional<Failure> {
    fill_inputs(shape, own);
    if (auto failure = call_checked(shape, sets[next_set++ % sets.size()], own, work, &clocks)) return failure;
    return residual_check(shape, own, work, max_error, pool);
  };
  const auto failed_timing = [&](const Failure &failure) {
    return failed(failure, verify_s, monotonic_seconds() - time_start, max_error);
  };

  // Warm-up: checked calls until their times settle (WarmupRule). A staged run (start_gate.hpp)
  // also warms up until the next candidate is set up (the gate's 't'), past --warmup-s if it
  // must: the next one's set-up never meets a timed call, and the GPU never idles before them.
  const WarmupRule warmup(config_.timing);
  std::vector<double> warmup_call_s;
  GateWord timing = config_.may_time ? GateWord::not_yet : GateWord::arrived;
  for (;;) {
    GpuCallOutcome clocks;
    if (auto failure = checked_call(clocks, nullptr)) return failed_timing(*failure);
    warmup_call_s.push_back(clocks.seconds);
    if (timing == GateWord::not_yet) timing = config_.may_time();
    if (timing == GateWord::closed) return stopped(verify_s);
    if (timing == GateWord::arrived && warmup.done(warmup_call_s, monotonic_seconds() - time_start)) break;
  }
  phase_ended("warm-up");

  std::vector<double> samples;
  const StoppingRule stopping(config_.timing);
  const double loop_start = monotonic_seconds();
  for (;;) {
    GpuCallOutcome clocks;
    if (auto failure = checked_call(clocks, &timed_pool)) return failed_timing(*failure);
    samples.push_back(clocks.seconds);
    if (config_.trace) {
      config_.trace->window_s.push_back(clocks.window_s);
      config_.trace->event_s.push_back(clocks.event_s);
      config_.trace->prepare_s.push_back(clocks.prepare_s);
      config_.trace->call_s.push_back(clocks.call_s);
      config_.trace->finish_s.push_back(clocks.finish_s);
      config_.trace->activity_records.push_back(clocks.report.records);
    }
    if (stopping.done(samples, monotonic_seconds() - loop_start, timed_pool.calls_needed())) break;
  }
  phase_ended("timed calls");
  if (const ResidualBound bound = residual_bound(config_.precision, Language::cuda, shape, 0x1p-53, config_.accumulation);
      !timed_pool.ok(bound))
    return failed_timing({Status::wrong_answer,
                          "the timed calls together fail the randomized residual check (normwise " +
                              number_text(timed_pool.normwise()) + " > " +
                              number_text(normwise_bound(bound, timed_pool.pairs)) + " over " +
                              number_text(timed_pool.pairs) + " rows and classes)" + at_shape(shape)});

  const SampleSummary summary = summarize(samples);
  Measurement measurement;
  measurement.status = Status::ok;
  measurement.reps = summary.count;
  measurement.median_s = summary.median;
  measurement.min_s = summary.min;
  measurement.iqr_s = summary.iqr();
  measurement.cv = summary.cv();
  measurement.gflops = summary.median > 0 ? shape.flops() / summary.median / 1e9 : 0;
  measurement.max_error = max_error;
  measurement.verify_s = verify_s;
  measurement.time_s = monotonic_seconds() - time_start;
  return measurement;
}

}  // namespace

GpuHarnessConfig harness_config(const RunnerArgs &args) {
  GpuHarnessConfig config;
  config.precision = args.precision;
  config.layout = args.layout;
  config.nominal = args.nominal;
  config.check_shapes = args.check_shapes;
  config.tolerance = args.tolerance;
  config.element_tolerance = args.element_tolerance;
  config.accumulation = args.accumulation;
  config.timing = args.timing;
  if (args.ring_bytes > 0) config.ring_bytes = args.ring_bytes;
  if (args.l2_bytes > 0) config.l2_bytes = args.l2_bytes;
  return config;
}

std::size_t operand_pool_bytes(const GpuHarnessConfig &config) {
  std::size_t bytes = ring_size_for(config) * Operands::footprint(config.precision, config.nominal);
  for (const Shape &shape : config.check_shapes)
    bytes = std::max(bytes, Operands::footprint(config.precision, shape));
  return bytes;
}

void load_gpu_code(Cublas &cublas, const GpuHarnessConfig &config) {
  std::vector<Shape> shapes = {config.nominal};
  shapes.insert(shapes.end(), config.check_shapes.begin(), config.check_shapes.end());
  for (const Shape &shape : shapes) {
    // Values are irrelevant: the kernels only have to run once, on one product.
    const Shape product{shape.m, shape.n, shape.k};
    const std::size_t a_size = a_bytes(config.precision, product), b_size = b_bytes(config.precision, product);
    const std::size_t elements = c_elements(product);
    DeviceMemory a(a_size), b(b_size), c(sizeof(double) * elements), bound(sizeof(double) * elements);
    cuda_call(cudaMemset(a.get(), 0, a_size), "clearing scratch A");
    cuda_call(cudaMemset(b.get(), 0, b_size), "clearing scratch B");
    if (&shape == &shapes.front()) cublas.gemm(config.precision, a.get(), b.get(), c.get(), shape.m, shape.n, shape.k);
    cublas.reference(config.precision, a.get(), b.get(), shape.m, shape.n, shape.k, c.as<double>(), bound.as<double>());
    cuda_call(cudaDeviceSynchronize(), "loading the GPU code");
  }
}

Measurement run_gpu_harness(GpuExecutor &executor, ExportedDeviceMemory &pool, const GpuHarnessConfig &config,
                            Cublas &cublas) {
  Harness harness(executor, pool, config, cublas);
  return harness.run();
}

}  // namespace hpcreward::gpu
