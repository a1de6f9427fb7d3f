#pragma once
// JSON messages over MPI without busy-waiting. Open MPI's blocking receive spins a core
// at 100%; on a benchmark node that core belongs to a timed candidate, so every wait
// here polls with MPI_Iprobe and sleeps in between.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mpi.h>
#include <nlohmann/json.hpp>

namespace hpcreward {

struct Envelope {
  int source = 0;
  int tag = 0;
  nlohmann::json body;
};

void mpi_send_json(const nlohmann::json &body, int destination, int tag);

// Sends that do not wait for their receiver. A blocking MPI_Send of a message above the
// eager limit (a few KiB on shared memory) waits until the receiver takes it, so a send to a
// rank that stopped (SIGSTOP, a stalled node) would hang the sender with it.
class PendingSends {
 public:
  PendingSends() = default;
  PendingSends(const PendingSends &) = delete;
  PendingSends &operator=(const PendingSends &) = delete;
  // Unfinished sends keep their buffers: their receiver may still take them, or never.
  ~PendingSends();

  // Starts the send (MPI_Isend) and returns at once; frees the sends that completed.
  void send(const nlohmann::json &body, int destination, int tag);
  // Frees the sends that completed; returns how many are still in flight.
  std::size_t progress();

 private:
  struct Send {
    std::unique_ptr<std::string> text;  // MPI reads it until the send completes
    MPI_Request request;
  };
  std::vector<Send> sends_;
};

// Waits for a message from `source` (or MPI_ANY_SOURCE) with `tag` (or MPI_ANY_TAG),
// sleeping `poll` between probes. Returns nullopt once `timeout` passes with none.
std::optional<Envelope> mpi_receive_json(int source, int tag, std::chrono::milliseconds timeout,
                                         std::chrono::microseconds poll = std::chrono::microseconds(500));

// Forever (no timeout).
Envelope mpi_receive_json(int source, int tag);

}  // namespace hpcreward
