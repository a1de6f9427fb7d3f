#pragma once
// JSON messages over MPI without busy-waiting. Open MPI's blocking receive spins a core
// at 100%; on a benchmark node that core belongs to a timed candidate, so every wait
// here polls with MPI_Iprobe and sleeps in between.
#include <chrono>
#include <optional>
#include <string>

#include <mpi.h>
#include <nlohmann/json.hpp>

namespace hpcreward {

struct Envelope {
  int source = 0;
  int tag = 0;
  nlohmann::json body;
};

void mpi_send_json(const nlohmann::json &body, int destination, int tag);

// Waits for a message from `source` (or MPI_ANY_SOURCE) with `tag` (or MPI_ANY_TAG),
// sleeping `poll` between probes. Returns nullopt once `timeout` passes with none.
std::optional<Envelope> mpi_receive_json(int source, int tag, std::chrono::milliseconds timeout,
                                         std::chrono::microseconds poll = std::chrono::microseconds(500));

// Forever (no timeout).
Envelope mpi_receive_json(int source, int tag);

}  // namespace hpcreward
