#pragma once
// How the coordinator reaches its benchmark ranks. MPI in production (mpi_transport),
// an in-process fake in tests, so the scheduling and logging logic runs without MPI.
#include <chrono>
#include <optional>

#include "common/messages.hpp"

namespace hpcreward {

class BenchTransport {
 public:
  virtual ~BenchTransport() = default;
  // Never waits for the rank to take the task (a rank that stopped must not stall the sender).
  virtual void send_task(int rank, const BenchTask &task) = 0;
  // Waits (without spinning a core) until some rank reports a result, at most `timeout`
  // (0: just look); nullopt when none came. The caller checks deadlines between waits.
  virtual std::optional<BenchResult> receive_result(std::chrono::milliseconds timeout) = 0;
};

}  // namespace hpcreward
