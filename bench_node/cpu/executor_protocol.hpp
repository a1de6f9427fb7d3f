#pragma once
// What the measurer (hpcreward-runner) and the executor (hpcreward-executor) say to each other.
//
// The executor stops itself (SIGSTOP) whenever it has done what it was asked; the measurer
// writes the next command into the control block while it is stopped, takes its clock, sends
// SIGCONT, and takes its clock again when waitid reports the next stop. A stopped process runs
// nothing, none of its threads: so the candidate cannot see the next inputs before the clock
// starts, nor finish its work after the clock stopped while the measurer checks it.
//
// The control block sits in the first page of the shared region. The executor reads it; the
// measurer reads back only `load_status` and `message`, as untrusted text.
#include <cstdint>

#include "bench_node/sandbox/candidate_loader.hpp"  // LoadStatus

namespace hpcreward {

enum class ExecutorCommand : std::uint32_t {
  none = 0,  // just stop again (the handshake's calibration)
  load = 1,  // dlopen the candidate, find matmul, install the seccomp filter
  call = 2,  // call matmul on the operands named below
};

struct ExecutorControl {
  ExecutorCommand command;
  std::uint32_t element_bytes;  // 8: double, 4: float
  std::uint32_t batched;        // 1: matmul(batch, m, n, k, ...) (Layout::batched)
  std::int32_t batch, m, n, k;
  std::uint64_t a, b, c;  // offsets in the shared region
  LoadStatus load_status;
  char message[512];
};

// The executor's descriptor of the shared region.
inline constexpr int kExecutorRegionFd = 3;

}  // namespace hpcreward
