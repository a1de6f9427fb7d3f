#pragma once
// Messages over MPI without busy-waiting. Open MPI's blocking receive spins a core at
// 100%; on a benchmark node that core belongs to a timed candidate, so every wait
// here polls with MPI_Iprobe and backs off in between (wait_backoff.hpp): a few yields, then
// sleeps that double up to a cap. Payloads are bytes (MPI_BYTE): binary tasks and results
// (messages_binary.hpp), JSON texts for the hello and stop (mpi_tags.hpp says which).
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <mpi.h>
#include <nlohmann/json.hpp>

namespace hpcreward {

struct Envelope {
  int source = 0;
  int tag = 0;
  std::string payload;
};

void mpi_send_bytes(std::string_view payload, int destination, int tag);
void mpi_send_json(const nlohmann::json &body, int destination, int tag);
// The payload as JSON (null when empty). Throws nlohmann::json::parse_error on a bad text.
nlohmann::json json_payload(const Envelope &envelope);

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

  // Starts the send (MPI_Isend) and returns at once; the payload lives until it completes.
  void send(std::string payload, int destination, int tag);
  // Frees the sends that completed (one MPI_Testsome over them all: each MPI_Test drives the
  // progress engine, which yields the CPU when oversubscribed); returns how many are in flight.
  std::size_t progress();

 private:
  // Parallel: MPI reads payloads_[i] until requests_[i] completes.
  std::vector<std::unique_ptr<std::string>> payloads_;
  std::vector<MPI_Request> requests_;
  std::vector<int> done_;  // MPI_Testsome's indices, kept to spare an allocation per call
};

// Waits for a message from `source` (or MPI_ANY_SOURCE) with `tag` (or MPI_ANY_TAG),
// probing after each pause of a WaitBackoff: sleeps of at most 1 ms for the first 100 ms, then
// a hundredth of the wait so far, up to `max_sleep` (a message that comes while the wait
// sleeps waits at most that long). Returns nullopt once `timeout` passes with none (0: one look).
// `already_waited`: how long the caller had been waiting for this before the call (it polls in
// slices); the sleeps go on from there instead of starting short again.
std::optional<Envelope> mpi_receive(int source, int tag, std::chrono::milliseconds timeout,
                                    std::chrono::microseconds max_sleep = std::chrono::microseconds(10000),
                                    std::chrono::microseconds already_waited = std::chrono::microseconds(0));

// Forever (no timeout).
Envelope mpi_receive(int source, int tag);

}  // namespace hpcreward
