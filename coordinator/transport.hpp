#pragma once
// How the coordinator reaches its benchmark ranks. MPI in production (mpi_transport),
// an in-process fake in tests, so the scheduling and logging logic runs without MPI.
#include "common/messages.hpp"

namespace hpcreward {

class BenchTransport {
 public:
  virtual ~BenchTransport() = default;
  virtual void send_task(int rank, const BenchTask &task) = 0;
  // Waits (without spinning a core) until some rank reports a result.
  virtual BenchResult receive_result() = 0;
};

}  // namespace hpcreward
