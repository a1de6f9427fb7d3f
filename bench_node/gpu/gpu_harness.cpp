#include "bench_node/gpu/gpu_harness.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "bench_node/gpu/cublas_reference.hpp"
#include "bench_node/gpu/cuda_call.hpp"
#include "bench_node/gpu/device_kernels.hpp"
#include "bench_node/gpu/device_memory.hpp"
#include "bench_node/monotonic_clock.hpp"
#include "bench_node/random_fill.hpp"
#include "bench_node/residual_bound.hpp"
#include "bench_node/statistics.hpp"
#include "common/number_text.hpp"

namespace hpcreward::gpu {

void CandidateEntry::call(int m, int n, int k, const void *a, const void *b, void *c) const {
  switch (precision) {
    case Precision::f64:
      reinterpret_cast<void (*)(int, int, int, const double *, const double *, double *)>(symbol)(
          m, n, k, static_cast<const double *>(a), static_cast<const double *>(b), static_cast<double *>(c));
      break;
    case Precision::f32:
      reinterpret_cast<void (*)(int, int, int, const float *, const float *, float *)>(symbol)(
          m, n, k, static_cast<const float *>(a), static_cast<const float *>(b), static_cast<float *>(c));
      break;
    case Precision::f16:
      reinterpret_cast<void (*)(int, int, int, const __half *, const __half *, __half *)>(symbol)(
          m, n, k, static_cast<const __half *>(a), static_cast<const __half *>(b), static_cast<__half *>(c));
      break;
  }
}

int input_exponent_range(Precision precision) { return precision == Precision::f32 ? 20 : 0; }

namespace {

// A candidate's failure found by a check: becomes the Measurement.
struct Failure {
  Status status;
  std::string reason;
};

std::string at_shape(const Shape &shape) { return " at " + to_string(shape); }

std::string element_name(std::size_t index, int n) {
  return "C[" + std::to_string(index / static_cast<std::size_t>(n)) + "][" +
         std::to_string(index % static_cast<std::size_t>(n)) + "]";
}

// The operands of one call: A, B, C with guard zones.
// Each guard zone's pattern comes from a secret of its own.
struct Operands {
  Operands(Precision precision, const Shape &shape)
      : a(bytes(precision, shape.m, shape.k), kernel_random_u64()),
        b(bytes(precision, shape.k, shape.n), kernel_random_u64()),
        c(bytes(precision, shape.m, shape.n), kernel_random_u64()) {}
  static std::size_t bytes(Precision precision, int rows, int cols) {
    return element_bytes(precision) * static_cast<std::size_t>(rows) * cols;
  }
  GuardedDeviceBuffer a, b, c;
};

// Device-side scratch shared by every check: the tally, checksums, Freivalds vectors.
class CheckWorkspace {
 public:
  CheckWorkspace(int max_rows, int max_inner, int max_cols)
      : tally_(sizeof(DeviceTally)), sums_(4 * sizeof(unsigned long long)),
        x_(3 * sizeof(double) * max_cols), y_(2 * sizeof(double) * max_inner),
        z_(2 * sizeof(double) * max_rows), w_(2 * sizeof(double) * max_rows) {}

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

 private:
  DeviceMemory tally_, sums_, x_, y_, z_, w_;
};

// One call's clocks: the events' time (the reward's), the host's span around the whole call,
// and the host's span from the blocker's release (the call returned) to the end.
struct CallClock {
  double event_s = 0;
  double wall_s = 0;
  double wall_after_release_s = 0;
};

class Harness {
 public:
  Harness(const CandidateEntry &candidate, const GpuHarnessConfig &config, Cublas &cublas)
      : candidate_(candidate), config_(config), cublas_(cublas) {}
  ~Harness() {
    if (release_ != nullptr) cudaFreeHost(const_cast<int *>(release_));
  }
  Harness(const Harness &) = delete;
  Harness &operator=(const Harness &) = delete;

  Measurement run();

 private:
  std::optional<Failure> verify_shape(const Shape &shape, double &max_error);
  std::optional<Failure> call_checked(const Shape &shape, Operands &operands, CheckWorkspace &work,
                                      CallClock *clock);
  std::optional<Failure> residual_check(const Shape &shape, Operands &operands, CheckWorkspace &work,
                                        double &max_error);
  void fill_inputs(const Shape &shape, Operands &operands);
  std::optional<Failure> candidate_errors(const char *when);

  void calibrate_sync_gap();
  void prepare_blocker();

  const CandidateEntry &candidate_;
  const GpuHarnessConfig &config_;
  Cublas &cublas_;
  double sync_gap_s_ = 0;  // least time from an event to one recorded after a device-wide sync
  volatile int *release_ = nullptr;          // the blocker's flag, host side (mapped memory)
  volatile int *release_device_ = nullptr;   // and as the device sees it
  int multiprocessors_ = 0;
};

void Harness::prepare_blocker() {
  if (config_.launch_lead_s <= 0 || release_ != nullptr) return;
  void *host = nullptr, *device = nullptr;
  cuda_call(cudaHostAlloc(&host, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc (blocker flag)");
  cuda_call(cudaHostGetDevicePointer(&device, host, 0), "cudaHostGetDevicePointer");
  release_ = static_cast<volatile int *>(host);
  release_device_ = static_cast<volatile int *>(device);
  cuda_call(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, 0), "multiprocessors");
}

// The clock's end (docs/design.md: side streams count). An end event on the legacy stream right
// after the call, then a device-wide synchronize and a second event. Work the end event could
// miss (on non-blocking streams) shows as a second event later than the idle gap between such
// events allows; then that counts, less the gap. An honest call reads its first event: no
// synchronize latency in a 20 microsecond kernel's time.
void Harness::calibrate_sync_gap() {
  cudaEvent_t first = nullptr, second = nullptr;
  cuda_call(cudaEventCreate(&first), "cudaEventCreate");
  cuda_call(cudaEventCreate(&second), "cudaEventCreate");
  double least = 1;
  for (int i = 0; i < 32; ++i) {
    cuda_call(cudaEventRecord(first, 0), "cudaEventRecord");
    cuda_call(cudaDeviceSynchronize(), "calibration");
    cuda_call(cudaEventRecord(second, 0), "cudaEventRecord");
    cuda_call(cudaEventSynchronize(second), "calibration");
    float ms = 0;
    cuda_call(cudaEventElapsedTime(&ms, first, second), "cudaEventElapsedTime");
    least = std::min(least, ms * 1e-3);
  }
  cudaEventDestroy(first);
  cudaEventDestroy(second);
  sync_gap_s_ = std::max(least, 0.0);
}

// Values known to no one before this call: a fresh secret from the kernel for every fill.
void Harness::fill_inputs(const Shape &shape, Operands &operands) {
  const int range = input_exponent_range(config_.precision);
  const std::uint64_t secret = kernel_random_u64();
  fill_operand(config_.precision, operands.a.data(), shape.m, shape.k, secret, 0, range, true);
  fill_operand(config_.precision, operands.b.data(), shape.k, shape.n, secret, 1, range, false);
  fill_nan(config_.precision, operands.c.data(), static_cast<std::size_t>(shape.m) * shape.n);
}

// What the candidate left behind on the device: a launch error, or a fault of its kernels
// (sticky: the context is lost, the runner ends and the rank checks the GPU with a canary).
std::optional<Failure> Harness::candidate_errors(const char *when) {
  const cudaError_t synced = cudaDeviceSynchronize();
  const cudaError_t last = cudaGetLastError();
  const cudaError_t error = synced != cudaSuccess ? synced : last;
  if (error == cudaSuccess) return std::nullopt;
  return Failure{Status::runtime_error, std::string("CUDA error ") + when + ": " + cudaGetErrorName(error) +
                                            " (" + cudaGetErrorString(error) + ")"};
}

// One candidate call with every check that needs no reference: guard zones and input
// checksums. Inputs are filled and C poisoned by the caller. The clock: events on the legacy
// default stream around the call, with a device-wide synchronize before the end event so
// work on any stream counts; the host clock around the same span.
std::optional<Failure> Harness::call_checked(const Shape &shape, Operands &operands, CheckWorkspace &work,
                                             CallClock *clock) {
  checksum(operands.a.data(), operands.a.data_bytes(), work.sum(0));
  checksum(operands.b.data(), operands.b.data_bytes(), work.sum(1));
  cuda_call(cudaDeviceSynchronize(), "before the call");
  const unsigned long long sum_a = work.read_sum(0), sum_b = work.read_sum(1);

  cudaEvent_t start = nullptr, stop = nullptr, after_sync = nullptr;
  cuda_call(cudaEventCreate(&start), "cudaEventCreate");
  cuda_call(cudaEventCreate(&stop), "cudaEventCreate");
  cuda_call(cudaEventCreate(&after_sync), "cudaEventCreate");
  // The blocker holds every SM until the call has returned (its launches queued) or the lead
  // passed (a candidate that synchronizes inside its call waits that long, untimed); work on
  // any stream starts after it, and the start event is the first thing after it.
  if (release_ != nullptr) {
    *release_ = 0;
    launch_blocker(multiprocessors_, release_device_, static_cast<unsigned long long>(config_.launch_lead_s * 1e9));
  }
  const double wall_start = monotonic_seconds();
  cuda_call(cudaEventRecord(start, 0), "cudaEventRecord");
  candidate_.call(shape.m, shape.n, shape.k, operands.a.data(), operands.b.data(), operands.c.data());
  if (release_ != nullptr) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    *release_ = 1;
  }
  const double wall_release = monotonic_seconds();
  const cudaError_t recorded = cudaEventRecord(stop, 0);
  const cudaError_t synced = cudaDeviceSynchronize();
  if (synced == cudaSuccess && recorded == cudaSuccess) cudaEventRecord(after_sync, 0), cudaEventSynchronize(after_sync);
  const double wall_end = monotonic_seconds();
  if (auto failure = candidate_errors("in the candidate's call")) return failure;
  if (synced != cudaSuccess || recorded != cudaSuccess)
    return Failure{Status::runtime_error, std::string("CUDA error in the candidate's call: ") +
                                              cudaGetErrorName(synced != cudaSuccess ? synced : recorded)};
  float call_ms = 0, all_ms = 0;
  cuda_call(cudaEventElapsedTime(&call_ms, start, stop), "cudaEventElapsedTime");
  cuda_call(cudaEventElapsedTime(&all_ms, start, after_sync), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaEventDestroy(after_sync);
  if (clock) {
    clock->event_s = std::max(call_ms * 1e-3, all_ms * 1e-3 - sync_gap_s_);
    clock->wall_s = wall_end - wall_start;
    clock->wall_after_release_s = wall_end - wall_release;
  }

  unsigned long long *mismatches = work.sum(2);
  cuda_call(cudaMemsetAsync(mismatches, 0, sizeof *mismatches), "guard reset");
  operands.a.count_guard_mismatches(mismatches);
  operands.b.count_guard_mismatches(mismatches);
  operands.c.count_guard_mismatches(mismatches);
  checksum(operands.a.data(), operands.a.data_bytes(), work.sum(0));
  checksum(operands.b.data(), operands.b.data_bytes(), work.sum(1));
  if (auto failure = candidate_errors("after the candidate's call")) return failure;
  if (const unsigned long long changed = work.read_sum(2); changed != 0)
    return Failure{Status::runtime_error, "wrote outside its operands: " + std::to_string(changed) +
                                              " guard-zone bytes around A, B or C changed" + at_shape(shape)};
  if (work.read_sum(0) != sum_a) return Failure{Status::wrong_answer, "modified its input A" + at_shape(shape)};
  if (work.read_sum(1) != sum_b) return Failure{Status::wrong_answer, "modified its input B" + at_shape(shape)};
  return std::nullopt;
}

std::optional<Failure> Harness::verify_shape(const Shape &shape, double &max_error) {
  Operands operands(config_.precision, shape);
  CheckWorkspace work(shape.m, shape.k, shape.n);
  const std::size_t elements = static_cast<std::size_t>(shape.m) * shape.n;
  DeviceMemory reference(sizeof(double) * elements), bound(sizeof(double) * elements);
  for (int call = 0; call < 2; ++call) {  // same buffers, new values: pointer-keyed caches replay
    fill_inputs(shape, operands);
    if (auto failure = call_checked(shape, operands, work, nullptr)) return failure;
    cublas_.reference(config_.precision, operands.a.data(), operands.b.data(), shape.m, shape.n, shape.k,
                      reference.as<double>(), bound.as<double>());
    DeviceTally *tally = work.reset_tally();
    compare_output(config_.precision, operands.c.data(), reference.as<double>(), bound.as<double>(), elements,
                   config_.element_tolerance, tally);
    cuda_call(cudaDeviceSynchronize(), "comparison");
    const DeviceTally result = work.read_tally();
    const std::string where = at_shape(shape) + (call == 0 ? "" : " (second call on the same buffers)");
    if (result.nonfinite != 0)
      return Failure{Status::wrong_answer, std::to_string(result.nonfinite) + " elements of C are NaN or inf, first " +
                                               element_name(result.first_violation, shape.n) + where};
    const double normwise = result.ref_sq > 0 ? std::sqrt(result.error_sq / result.ref_sq) : 0;
    max_error = std::max(max_error, normwise);
    if (result.violations != 0)
      return Failure{Status::wrong_answer,
                     std::to_string(result.violations) + " elements of C differ from cuBLAS by more than " +
                         number_text(config_.element_tolerance) + " x (|A||B|)_ij, first " +
                         element_name(result.first_violation, shape.n) + where};
    if (normwise > config_.tolerance)
      return Failure{Status::wrong_answer, "relative error " + number_text(normwise) + " exceeds " +
                                               number_text(config_.tolerance) + where};
  }
  return std::nullopt;
}

// The row-wise residual check (residual_bound.hpp): with a secret x drawn after the call, A (B x)
// must equal C x row by row within the error an honest computation at this precision makes.
std::optional<Failure> Harness::residual_check(const Shape &shape, Operands &operands, CheckWorkspace &work,
                                               double &max_error) {
  const ResidualBound bound = residual_bound(config_.precision, Language::cuda, shape, 0x1p-53);
  double *x = work.x(), *x_sq = x + shape.n, *norm = x + 2 * shape.n;
  double *y = work.y(), *y_sq = y + shape.k;
  double *z = work.z(), *z_sq = z + shape.m;
  double *w = work.w(), *w_sq = w + shape.m;
  column_norms(config_.precision, operands.b.data(), shape.k, shape.n, norm);
  fill_vector(x, x_sq, norm, shape.n, kernel_random_u64());
  gemv(config_.precision, operands.b.data(), shape.k, shape.n, x, x_sq, y, y_sq);
  gemv(config_.precision, operands.a.data(), shape.m, shape.k, y, y_sq, z, z_sq);
  gemv(config_.precision, operands.c.data(), shape.m, shape.n, x, x_sq, w, w_sq);
  DeviceTally *tally = work.reset_tally();
  compare_residual(z, z_sq, w, shape.m, bound.row, tally);
  cuda_call(cudaDeviceSynchronize(), "residual check");
  const DeviceTally result = work.read_tally();
  if (result.nonfinite != 0)
    return Failure{Status::wrong_answer, "a timed call left NaN or inf in C (row " +
                                             std::to_string(result.first_violation) + ")" + at_shape(shape)};
  const double normwise = result.ref_sq > 0 ? std::sqrt(result.error_sq / result.ref_sq) : 0;
  if (result.violations != 0)
    return Failure{Status::wrong_answer, "a timed call's output fails the randomized residual check in " +
                                             std::to_string(result.violations) + " rows, first row " +
                                             std::to_string(result.first_violation) + " (worst " +
                                             number_text(result.worst_ratio) + " > " + number_text(bound.row) +
                                             " of an honest error's scale; normwise " + number_text(normwise) +
                                             ", bound " + number_text(bound.normwise) + ")" + at_shape(shape)};
  if (normwise > bound.normwise)
    return Failure{Status::wrong_answer, "a timed call's output fails the randomized residual check (normwise " +
                                             number_text(normwise) + " > " + number_text(bound.normwise) + ")" +
                                             at_shape(shape)};
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
  const double verify_start = monotonic_seconds();
  prepare_blocker();
  std::vector<Shape> shapes = {config_.nominal};
  shapes.insert(shapes.end(), config_.check_shapes.begin(), config_.check_shapes.end());
  for (const Shape &checked : shapes)
    if (auto failure = verify_shape(checked, max_error))
      return failed(*failure, monotonic_seconds() - verify_start, 0, max_error);
  const double verify_s = monotonic_seconds() - verify_start;

  // Timing: a ring of buffer sets, as many as fit the budget (2 to 8).
  const Shape &shape = config_.nominal;
  const std::size_t set_bytes = Operands::bytes(config_.precision, shape.m, shape.k) +
                                Operands::bytes(config_.precision, shape.k, shape.n) +
                                Operands::bytes(config_.precision, shape.m, shape.n);
  const std::size_t ring = std::clamp<std::size_t>(config_.ring_bytes / std::max<std::size_t>(set_bytes, 1), 2, 8);
  const double time_start = monotonic_seconds();
  std::vector<Operands> sets;
  sets.reserve(ring);
  for (std::size_t i = 0; i < ring; ++i)
    sets.emplace_back(config_.precision, shape);
  CheckWorkspace work(shape.m, shape.k, shape.n);
  DeviceMemory flush(2 * std::max<std::size_t>(config_.l2_bytes, 1 << 20));
  calibrate_sync_gap();
  prepare_blocker();

  std::vector<double> samples;
  std::size_t disagreements = 0;
  const StoppingRule stopping(config_.timing);
  double loop_start = 0;
  bool warming = true;
  for (std::uint64_t call = 0;; ++call) {
    Operands &operands = sets[call % ring];
    fill_inputs(shape, operands);  // new values, not timed
    if (config_.flush_l2)
      cuda_call(cudaMemsetAsync(flush.get(), static_cast<int>(call & 0xff), flush.bytes()), "L2 flush");
    if (config_.reset_persisting_l2)
      cudaCtxResetPersistingL2Cache();  // the candidate can't set a window (object audit); belt and braces
    CallClock clock;
    if (auto failure = call_checked(shape, operands, work, &clock))
      return failed(*failure, verify_s, monotonic_seconds() - time_start, max_error);
    if (auto failure = residual_check(shape, operands, work, max_error))
      return failed(*failure, verify_s, monotonic_seconds() - time_start, max_error);
    const double event_s = clock.event_s;
    if (event_s > clock.wall_s + 1e-4)  // an event can't outlast the host's span around it
      return failed({Status::forbidden, "the CUDA events measured " + number_text(event_s) +
                                            " s for a call the host clock saw take " + number_text(clock.wall_s) + " s"},
                    verify_s, monotonic_seconds() - time_start, max_error);
    if (warming) {
      if (monotonic_seconds() - time_start >= config_.timing.warmup_s && call >= 1) {
        warming = false;
        loop_start = monotonic_seconds();
      }
      continue;
    }
    // The host's span the events must see most of: all of it from an idle start; behind the
    // blocker, from the release on (before it the host was only queueing work).
    const double seen = release_ != nullptr ? clock.wall_after_release_s : clock.wall_s;
    if (event_s < 0.5 * seen - 1e-4) ++disagreements;
    samples.push_back(event_s);
    if (stopping.done(samples, monotonic_seconds() - loop_start)) break;
  }
  if (static_cast<double>(disagreements) > kClockDisagreementAllowed * static_cast<double>(samples.size()))
    return failed({Status::forbidden, std::to_string(disagreements) + " of " + std::to_string(samples.size()) +
                                          " timed calls took under half the host clock's time on the CUDA events"},
                  verify_s, monotonic_seconds() - time_start, max_error);

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

Measurement run_gpu_harness(const CandidateEntry &candidate, const GpuHarnessConfig &config, Cublas &cublas) {
  Harness harness(candidate, config, cublas);
  return harness.run();
}

}  // namespace hpcreward::gpu
