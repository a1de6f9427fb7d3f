#pragma once
// What hpcreward-gpu-runner (the measurer) and hpcreward-gpu-executor (the process the CUDA
// candidate runs in) say to each other (docs/reward-integrity.md, "CUDA candidates").
//
// The executor gets two descriptors: the control page (a memfd, fd 3) and a socket (fd 4) on
// which the measurer sends it the operand pool (device memory exported as a POSIX descriptor)
// once both have their CUDA contexts, created at the same time. Nothing else of the
// measurer's, host or device, is reachable from it: another process, another CUDA context.
//
// Between commands the executor is stopped (SIGSTOP). A call goes:
//   measurer: writes the command, SIGCONT
//   executor: armed = sequence, then spins until go == sequence
//   measurer: clock t0; copies the fresh inputs into the pool, poisons C, flushes L2, waits
//             for its stream; go = sequence
//   executor: matmul(...), cudaDeviceSynchronize, cuda_error, done = sequence, stops
//   measurer: on done (or the executor's stop or end): copies C out of the pool into its own
//             memory, waits for its stream; clock t1
// Whatever device work of the candidate's went into that copy read inputs that did not exist
// before t0 and was done before the copy ended: inside [t0, t1] by causality, whatever the
// candidate's code does to its own process, its streams or its contexts. Work after the copy
// does not count and cannot change the result.
//
// [t0, t1] also holds two switches of the GPU between the contexts (about 140 us each on an
// H200 without MPS), so the call's own time comes from CUDA events the executor records around
// it (event_seconds, as precise as events are), trusted only as far as the window allows:
// gpu_executor.hpp clamps it to [window - high overhead, window - least overhead], the two
// overheads calibrated before the candidate is loaded.
//
// The executor's words (armed, done, event_seconds, load_status, cuda_error, message) are
// untrusted: within that clamp they can only ever cost the candidate.
#include <cstdint>

#include "bench_node/sandbox/candidate_loader.hpp"  // LoadStatus

namespace hpcreward::gpu {

enum class GpuCommand : std::uint32_t {
  none = 0,       // the round trip with a kernel of the executor's own on the operands (calibration)
  open_pool = 1,  // receive the operand pool on fd 4, map it into the executor's context
  load = 2,       // enter `directory`, dlopen `object`, find matmul, install the seccomp filter
  call = 3,       // call matmul on the operands named below
  report = 4,     // read CUPTI's records of the last round into activity_* (between rounds: it
                  // takes 0.2 to 0.5 ms and does device work, which must not reach a window)
};

struct GpuExecutorControl {
  std::uint64_t armed;  // written by the executor, read with std::atomic_ref
  std::uint64_t go;     // written by the measurer
  std::uint64_t done;   // written by the executor
  std::uint64_t sequence;
  GpuCommand command;
  std::uint32_t precision;  // common/problem.hpp Precision
  std::uint32_t batched;    // 1: matmul(batch, m, n, k, ...) (Layout::batched)
  std::int32_t batch, m, n, k;
  std::uint64_t a, b, c;  // offsets in the pool
  std::uint64_t pool_bytes;
  LoadStatus load_status;
  std::int32_t cuda_error;  // cudaError_t after the call's synchronize
  std::int32_t threw;       // 1: the call threw (message says what)
  double event_seconds;     // the call by the executor's CUDA events
  double activity_seconds;  // the call by CUPTI's records of its device work (activity_clock.hpp)
  std::uint32_t activity_records;  // how many; 0: none to be had (then the events stand alone)
  char message[512];
  // For load, from the measurer: the candidate's object and the run's private directory
  // (NUL-terminated). The executor is started before its candidate is chosen.
  char object[1024];
  char directory[1024];
};

inline constexpr int kGpuControlFd = 3;
inline constexpr int kGpuPoolSocketFd = 4;

}  // namespace hpcreward::gpu
