// hpcreward-gpu-executor: the process a CUDA candidate runs in, started by hpcreward-gpu-runner
// (the measurer) with the control page on fd 3 and the socket the operand pool arrives on as
// fd 4, nothing else of the measurer's: not its memory (execv), not its descriptors, not its
// CUDA context. The protocol is in gpu_executor_protocol.hpp.
//
//   hpcreward-gpu-executor [--activity-clock 1]
//
// It drops every capability (a root measurer's memory stays out of reach of /proc/<pid>/mem),
// initialises the driver and stops; on SIGCONT creates its context and stops; maps the pool; then loads the candidate the
// measurer names (a serving measurer starts it before the candidate is chosen) and installs the GPU
// seccomp filter before the first call. Not meant to be run by hand.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "bench_node/gpu/activity_clock.hpp"
#include "bench_node/gpu/call_clock.hpp"
#include "bench_node/gpu/exported_device_memory.hpp"
#include "bench_node/gpu/gpu_executor_protocol.hpp"
#include "bench_node/process/host_memory.hpp"
#include "bench_node/sandbox/candidate_loader.hpp"
#include "bench_node/sandbox/capabilities.hpp"
#include "bench_node/sandbox/descriptor_passing.hpp"
#include "bench_node/sandbox/file_writes.hpp"
#include "bench_node/sandbox/gpu_seccomp_filter.hpp"
#include "bench_node/sandbox/read_only_view.hpp"
#include "bench_node/cpu/shared_region.hpp"
#include "common/problem.hpp"

namespace hpcreward::gpu {

// gpu_executor_kernel.cu
cudaError_t launch_touch_kernel(const void *a, std::size_t a_bytes, const void *b, std::size_t b_bytes, void *c,
                                std::size_t c_bytes);

namespace {

void set_message(GpuExecutorControl &control, const char *text) {
  std::snprintf(control.message, sizeof control.message, "%s", text ? text : "unknown");
}

std::byte *open_pool(GpuExecutorControl &control) {
  const int fd = receive_descriptor(kGpuPoolSocketFd);
  ::close(kGpuPoolSocketFd);
  if (fd < 0) {
    set_message(control, "no operand pool arrived");
    control.load_status = LoadStatus::load_failed;
    return nullptr;
  }
  const char *error = nullptr;
  void *pool = import_device_memory(fd, control.pool_bytes, error);
  ::close(fd);
  if (pool == nullptr) {
    set_message(control, error);
    control.load_status = LoadStatus::load_failed;
    return nullptr;
  }
  control.load_status = LoadStatus::loaded;
  return static_cast<std::byte *>(pool);
}

// No file writable but the GPU's device files (the driver has opened them already), then the
// seccomp filter. A kernel without Landlock refuses every CUDA candidate: a run there could
// rewrite other candidates' objects or the reward log (sandbox/file_writes.hpp).
void install_filter() {
  restrict_file_writes(nvidia_device_files());
  install_gpu_candidate_filter({.result_fd = -1, .progress_fd = -1, .self = 0});
}

template <typename T>
void call_as(void *symbol, const GpuExecutorControl &control, std::byte *pool) {
  const auto *a = reinterpret_cast<const T *>(pool + control.a);
  const auto *b = reinterpret_cast<const T *>(pool + control.b);
  auto *c = reinterpret_cast<T *>(pool + control.c);
  if (control.batched != 0)
    reinterpret_cast<void (*)(int, int, int, int, const T *, const T *, T *)>(symbol)(control.batch, control.m,
                                                                                     control.n, control.k, a, b, c);
  else
    reinterpret_cast<void (*)(int, int, int, const T *, const T *, T *)>(symbol)(control.m, control.n, control.k, a,
                                                                                b, c);
}

// Why the read-only view could not be made ("" when it was); main's first step.
std::string no_view;

// The candidate the measurer names in the control page, loaded from the run's directory.
void *load_named(GpuExecutorControl &control) {
  if (!no_view.empty()) {  // fail closed: no candidate runs where it could change files' metadata
    set_message(control, no_view.c_str());
    control.load_status = LoadStatus::no_sandbox;
    return nullptr;
  }
  char object[sizeof control.object], directory[sizeof control.directory];
  std::memcpy(object, control.object, sizeof object);
  std::memcpy(directory, control.directory, sizeof directory);
  object[sizeof object - 1] = directory[sizeof directory - 1] = '\0';
  if (::chdir(directory) != 0) {
    set_message(control, "cannot enter the run's directory");
    control.load_status = LoadStatus::load_failed;
    return nullptr;
  }
  return load_candidate(object, install_filter, control.load_status, control.message, sizeof control.message);
}

// The call's time by CUDA events on the legacy stream (the ranks' clock; CUPTI's records,
// activity_clock.hpp, are a benchmark option): a start event, the call, an end event right after it, a device-wide
// synchronize and a second event. Work the end event could miss (on non-blocking streams)
// shows as a second event later than the idle gap between such events allows; then that
// counts, less the gap. Untrusted once the candidate is loaded: the measurer clamps it.
class EventClock {
 public:
  EventClock() {
    cudaEventCreate(&start_);
    cudaEventCreate(&end_);
    cudaEventCreate(&after_sync_);
    for (int i = 0; i < 32; ++i) {  // the idle gap, before any candidate code
      cudaEventRecord(end_, 0);
      cudaDeviceSynchronize();
      cudaEventRecord(after_sync_, 0);
      cudaEventSynchronize(after_sync_);
      float ms = 0;
      cudaEventElapsedTime(&ms, end_, after_sync_);
      gap_s_ = std::min(gap_s_, ms * 1e-3);
    }
    first_gap_s_ = gap_s_;
  }
  void start() { cudaEventRecord(start_, 0); }
  // After the call: the end events and the device-wide synchronize; its error. Calibration
  // rounds measure the gap again on a warm GPU (call_clock.hpp idle_gap: with only the first
  // gap, a kernel on a non-blocking stream read 2.4% faster than on the legacy stream at
  // 1024^3 on an H200).
  cudaError_t end(double &seconds, bool calibrating) {
    const cudaError_t recorded = cudaEventRecord(end_, 0);
    const cudaError_t synced = cudaDeviceSynchronize();
    if (recorded != cudaSuccess || synced != cudaSuccess) return synced != cudaSuccess ? synced : recorded;
    cudaEventRecord(after_sync_, 0);
    cudaEventSynchronize(after_sync_);
    float call_ms = 0, all_ms = 0;
    cudaEventElapsedTime(&call_ms, start_, end_);
    cudaEventElapsedTime(&all_ms, start_, after_sync_);
    if (calibrating) {
      warm_gaps_s_.push_back((all_ms - call_ms) * 1e-3);
      gap_s_ = idle_gap(first_gap_s_, warm_gaps_s_);
    }
    seconds = std::max(call_ms * 1e-3, all_ms * 1e-3 - gap_s_);
    return cudaSuccess;
  }

 private:
  cudaEvent_t start_ = nullptr, end_ = nullptr, after_sync_ = nullptr;
  double gap_s_ = 1, first_gap_s_ = 1;
  std::vector<double> warm_gaps_s_;
};

// One armed round: ready, the measurer's go, the call (or the calibration's kernel) between events,
// the synchronize, done.
void armed_round(GpuExecutorControl &control, void *symbol, std::byte *pool, EventClock &clock) {
  const std::uint64_t sequence = control.sequence;
  std::atomic_ref<std::uint64_t>(control.armed).store(sequence, std::memory_order_release);
  while (std::atomic_ref<std::uint64_t>(control.go).load(std::memory_order_acquire) != sequence)
    __builtin_ia32_pause();
  cudaError_t error = cudaSuccess;
  clock.start();
  if (control.command == GpuCommand::none) {
    if (pool != nullptr) {
      const std::size_t bytes = element_bytes(static_cast<Precision>(control.precision)) * control.batch;
      error = launch_touch_kernel(pool + control.a, bytes * control.m * control.k, pool + control.b,
                                  bytes * control.k * control.n, pool + control.c, bytes * control.m * control.n);
    }
  } else if (symbol != nullptr && pool != nullptr) {
    // An exception out of the call (most often `new` past the host-memory limit) is the
    // candidate's failure; its reason is written without allocating (the heap may be full).
    try {
      switch (static_cast<Precision>(control.precision)) {
        case Precision::f64: call_as<double>(symbol, control, pool); break;
        case Precision::f32: call_as<float>(symbol, control, pool); break;
        case Precision::f16: call_as<__half>(symbol, control, pool); break;
        case Precision::bf16: call_as<__nv_bfloat16>(symbol, control, pool); break;
      }
    } catch (const std::bad_alloc &) {
      out_of_host_memory(control.message, sizeof control.message);
      control.threw = 1;
    } catch (const std::exception &error) {
      std::snprintf(control.message, sizeof control.message, "%s", error.what());
      control.threw = 1;
    } catch (...) {
      std::snprintf(control.message, sizeof control.message, "an exception that is not a std::exception");
      control.threw = 1;
    }
  }
  double seconds = 0;
  const cudaError_t ended = clock.end(seconds, control.command == GpuCommand::none);
  const cudaError_t last = cudaGetLastError();
  if (error == cudaSuccess) error = ended != cudaSuccess ? ended : last;
  control.event_seconds = seconds;
  if (error != cudaSuccess && control.threw == 0) {
    std::snprintf(control.message, sizeof control.message, "%s (%s)", cudaGetErrorName(error),
                  cudaGetErrorString(error));
    control.cuda_error = static_cast<std::int32_t>(error);
  }
  std::atomic_ref<std::uint64_t>(control.done).store(sequence, std::memory_order_release);
}

// The last round's records (GpuCommand::report), and a fresh start for the next round's.
void report_activity(GpuExecutorControl &control, ActivityClock *activity) {
  std::size_t records = 0;
  double span = 0;
  const bool read = activity != nullptr && activity->span(span, records);
  control.activity_seconds = read ? span : 0;
  control.activity_records = read ? static_cast<std::uint32_t>(records) : 0;
  if (activity != nullptr) activity->begin();
}

}  // namespace
}  // namespace hpcreward::gpu

int main(int argc, char **argv) {
  using namespace hpcreward;
  using namespace hpcreward::gpu;
  bool use_activity = false;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::strcmp(argv[i], "--activity-clock") == 0) use_activity = std::strcmp(argv[i + 1], "1") == 0;
  if (::fcntl(kGpuControlFd, F_GETFD) < 0 || ::fcntl(kGpuPoolSocketFd, F_GETFD) < 0) {
    std::fputs("hpcreward-gpu-executor: started by hpcreward-gpu-runner, not by hand\n", stderr);
    return 2;
  }
  // Every mount but /proc read-only to it (sandbox/read_only_view.hpp), before the driver starts
  // a thread. It keeps root's id under a root rank: the run's directory it loads from is root's.
  no_view = enter_read_only_view({.root_becomes = std::nullopt, .remount_each = false, .left_writable = {"/proc"}});
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives its measurer
  // Non-dumpable, then without capabilities, in that order, so there is no moment when it is
  // both dumpable and as powerless as a candidate: other executors beside this one (the next
  // candidate's, set up while this one runs; other GPU ranks' on the node) cannot open its
  // memory or its /proc entries. The seccomp filter refuses changing it back, and the candidate's
  // Landlock domain (file_writes.hpp) keeps it from ptrace-style access to processes outside it.
  ::prctl(PR_SET_DUMPABLE, 0);
  if (!drop_all_capabilities()) return 3;
  void *mapped = ::mmap(nullptr, SharedRegion::kControlBytes, PROT_READ | PROT_WRITE, MAP_SHARED, kGpuControlFd, 0);
  if (mapped == MAP_FAILED) return 3;
  ::close(kGpuControlFd);
  auto &control = *static_cast<GpuExecutorControl *>(mapped);
  // The driver's start first (host work, no GPU work), then a stop: a measurer started ahead of
  // its turn lets the context come only when it may.
  int devices = 0;
  cudaGetDeviceCount(&devices);
  ::raise(SIGSTOP);
  // The context now, while the measurer creates its own; a failure shows as the pool's.
  cudaSetDevice(0);
  cudaFree(nullptr);

  std::byte *pool = nullptr;
  void *symbol = nullptr;
  // Made at the first round (the calibration's, once the GPU is this run's): its idle gap is
  // measured on a GPU no other run is using, and its 32 synchronised rounds are not spent
  // waiting for time slices while another run verifies and warms up beside this set-up.
  std::optional<EventClock> clock;
  ActivityClock activity;
  std::string activity_error;
  const bool have_activity = use_activity && activity.start(activity_error);
  if (use_activity && !have_activity)  // benchmarks only: their tables show 0 records a call
    std::fprintf(stderr, "hpcreward-gpu-executor: --activity-clock: %s; the events stand\n", activity_error.c_str());
  for (;;) {
    ::raise(SIGSTOP);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the measurer wrote while we were stopped
    switch (control.command) {
      case GpuCommand::open_pool: pool = open_pool(control); break;
      case GpuCommand::load: symbol = load_named(control); break;
      case GpuCommand::none:
      case GpuCommand::call: armed_round(control, symbol, pool, clock ? *clock : clock.emplace()); break;
      case GpuCommand::report: report_activity(control, have_activity ? &activity : nullptr); break;
    }
  }
}
