#pragma once
// The coordinator's side of the MPI protocol (common/mpi_tags.hpp).
#include <chrono>
#include <optional>
#include <vector>

#include "common/messages.hpp"
#include "common/mpi_channel.hpp"
#include "coordinator/ranks/transport.hpp"

namespace hpcreward {

class MpiTransport : public BenchTransport {
 public:
  void send_task(int rank, const BenchTask &task) override;
  std::optional<BenchResult> receive_result(std::chrono::milliseconds timeout) override;

 private:
  PendingSends sends_;  // tasks go out with MPI_Isend: a stopped rank never takes a large one
  // Since the last task went out or result came in: the scoring loop waits in slices (its
  // deadlines and stop requests), and a wait that has lasted seconds across slices keeps its
  // long sleeps instead of waking a thousand times a second again at every slice.
  std::optional<std::chrono::steady_clock::time_point> quiet_since_;
};

// Collects the hello of every benchmark rank 1..world_size-1. Throws std::runtime_error
// naming the missing ranks if they have not all said hello within `timeout`.
std::vector<RankInfo> gather_rank_info(int world_size, std::chrono::seconds timeout);

// Tells every benchmark rank to finish. Safe to call more than once.
void stop_bench_ranks(int world_size);

}  // namespace hpcreward
