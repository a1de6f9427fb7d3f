#pragma once
// The GPU measurer's side of the separation (docs/reward-integrity.md, "CUDA candidates"): the
// candidate runs in hpcreward-gpu-executor, a child process with a CUDA context of its own,
// which shares with the measurer only the control page and the operand pool. The protocol,
// and why its clock cannot be beaten by work on other streams or after the call, is in
// gpu_executor_protocol.hpp. No CUDA here: the measurer's device work before and after each
// call comes in as `prepare` and `finish`.
//
// Each call has two clocks: the window, from before `prepare` to after `finish` (trusted: the
// measurer's), and the executor's CUDA events around the call (precise, untrusted). The
// overhead, window less events, is calibrated before the candidate is loaded (the same
// prepare and finish around a kernel of the executor's own, 32 rounds): its least and a
// high one (the 90th percentile). A call's time is its events clamped to [window - high
// overhead, window - least overhead]: an honest call reads its events; a forged one gains at
// most the spread between the two overheads (docs/reward-integrity.md gives its size).
#include <signal.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "bench_node/cpu/candidate_calls.hpp"
#include "bench_node/gpu/call_clock.hpp"
#include "bench_node/gpu/gpu_executor_protocol.hpp"
#include "bench_node/cpu/shared_region.hpp"
#include "common/problem.hpp"

namespace hpcreward::gpu {

struct GpuExecutorOptions {
  std::string program;  // hpcreward-gpu-executor
  std::string object;   // the candidate's shared object (or later: set_object)
  int calibration_rounds = 32;
  // Read calls from CUPTI's records (activity_clock.hpp, call_clock.hpp call_reading) instead
  // of the events. Off in ranks: measured on an H200 it makes every launch slower, which
  // widens the window's spread (the bound on forged reports) and lifts honest short calls
  // to the window's bound; on for benchmarks (hpcreward-gpu-fidelity, docs/reports/gpu-harness.md).
  bool activity_clock = false;
};

// The measurer's device work around one call: inputs into the pool before, C out after.
struct CallSteps {
  std::function<void()> prepare;
  std::function<void()> finish;
};

struct GpuCallOutcome {
  Verdict verdict;         // not ok: the executor did not come back (it ended, or broke the protocol)
  double seconds = 0;      // the call's time: its events, clamped by the window
  std::string cuda_error;  // what the executor reported of the call's synchronize ("" none; untrusted)
  std::string exception;   // what the call threw, as the executor reported it ("" none; untrusted)
  double window_s = 0;     // the measurer's clock, prepare to finish
  CallReport report;        // what the executor reported (untrusted)
  double event_s = 0;      // the report's reading (call_reading)
  // The window's parts, for reports: prepare, go to done (or the executor's stop), finish.
  double prepare_s = 0, call_s = 0, finish_s = 0;
};

class GpuExecutor {
 public:
  // Starts the executor (it creates its CUDA context while the measurer creates its own).
  explicit GpuExecutor(GpuExecutorOptions options);
  ~GpuExecutor();  // kills and reaps the executor
  // Kills it now without waiting (the destructor reaps it): nothing of the candidate's host
  // code runs after this; its device work ends with its context, at the reaping.
  void kill();
  GpuExecutor(const GpuExecutor &) = delete;
  GpuExecutor &operator=(const GpuExecutor &) = delete;

  // The executor initialises the driver and stops; then creates its context when told. Lets
  // the executor create its context (returns at once: it does so while the measurer creates
  // its own); await_context() waits until it has. Every later command waits for it too.
  void start_context();
  Verdict await_context();
  // Maps the pool (the descriptor of ExportedDeviceMemory) into the executor's context.
  Verdict open_pool(int pool_fd, std::size_t pool_bytes);
  // The overhead with `steps` around a kernel of the executor's own that reads A and B and
  // writes C (offsets in the pool, as for call()), `calibration_rounds` times. Before load():
  // the candidate cannot slow it down.
  Verdict calibrate(Precision precision, const Shape &shape, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                    const CallSteps &steps);
  // Loads the candidate under the seccomp filter. Not ok: compile_error for an object that
  // won't load, format_error without matmul, or how the executor ended.
  Verdict load();
  // The object load() loads, when the executor was started before its candidate was chosen.
  void set_object(std::string object) { options_.object = std::move(object); }
  // The candidate's signature: matmul(batch, m, n, k, ...) where true (Layout::batched).
  void set_batched(bool batched) { batched_ = batched; }
  GpuCallOutcome call(Precision precision, const Shape &shape, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                      const CallSteps &steps);

  // The calibrated overhead (window less the reading; call_clock.hpp).
  const CallOverhead &overhead() const { return overhead_; }

 private:
  // One armed round: SIGCONT, armed, prepare, go, done (or the executor's stop or end), finish.
  GpuCallOutcome round(GpuCommand command, Precision precision, const Shape &shape, std::uint64_t a, std::uint64_t b,
                       std::uint64_t c, const CallSteps &steps);
  // SIGCONT, then the executor's next stop (commands with no clock).
  Verdict resume();
  Verdict wait_for_stop();
  Verdict ensure_started();  // its context created (started and waited for, at the first command)

  bool peek_change(siginfo_t &info) const;  // a stop or end not yet reaped, without reaping it
  GpuExecutorControl &control() const;

  GpuExecutorOptions options_;
  bool batched_ = false;
  SharedRegion region_;
  int pool_socket_ = -1;  // the measurer's end of the socket the pool's descriptor goes through
  pid_t pid_ = -1;
  bool driver_up_ = false;       // its first stop seen: the driver initialised
  bool context_started_ = false;  // SIGCONT sent for its context
  bool started_ = false;          // its second stop seen: its context exists
  Verdict ended_early_;           // how it ended before its first stop, if it did
  std::uint64_t sequence_ = 0;
  CallOverhead overhead_;
};

}  // namespace hpcreward::gpu
