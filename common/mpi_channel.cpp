#include "common/mpi_channel.hpp"

#include <sched.h>

#include <limits>
#include <stdexcept>
#include <thread>

#include "common/wait_backoff.hpp"

namespace hpcreward {
namespace {
constexpr int kWaitYields = 8;
constexpr std::chrono::microseconds kFirstSleep(20);
// The first 100 ms of a wait look at least once a millisecond: a rank's result or its next
// task waits at most that long (wait_backoff.hpp says why).
constexpr std::chrono::microseconds kPromptSleep(1000);

int byte_count(std::size_t size) {
  if (size > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("MPI message of " + std::to_string(size) + " bytes is over the 2 GiB limit of one send");
  return static_cast<int>(size);
}
}  // namespace

void mpi_send_bytes(std::string_view payload, int destination, int tag) {
  MPI_Send(payload.data(), byte_count(payload.size()), MPI_BYTE, destination, tag, MPI_COMM_WORLD);
}

void mpi_send_json(const nlohmann::json &body, int destination, int tag) {
  mpi_send_bytes(body.is_null() ? std::string() : body.dump(), destination, tag);
}

nlohmann::json json_payload(const Envelope &envelope) {
  if (envelope.payload.empty()) return nlohmann::json();
  return nlohmann::json::parse(envelope.payload);
}

PendingSends::~PendingSends() {
  progress();
  for (std::unique_ptr<std::string> &payload : payloads_) static_cast<void>(payload.release());
}

void PendingSends::send(std::string payload, int destination, int tag) {
  const int count = byte_count(payload.size());
  payloads_.push_back(std::make_unique<std::string>(std::move(payload)));
  requests_.push_back(MPI_REQUEST_NULL);
  MPI_Isend(payloads_.back()->data(), count, MPI_BYTE, destination, tag, MPI_COMM_WORLD, &requests_.back());
}

std::size_t PendingSends::progress() {
  if (requests_.empty()) return 0;
  done_.resize(requests_.size());
  int count = 0;
  MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, done_.data(), MPI_STATUSES_IGNORE);
  if (count == MPI_UNDEFINED || count == 0) return requests_.size();
  // Completed requests are MPI_REQUEST_NULL now: drop them with their payloads.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) continue;
    requests_[kept] = requests_[i];
    payloads_[kept] = std::move(payloads_[i]);
    ++kept;
  }
  requests_.resize(kept);
  payloads_.resize(kept);
  return kept;
}

std::optional<Envelope> mpi_receive(int source, int tag, std::chrono::milliseconds timeout,
                                    std::chrono::microseconds max_sleep, std::chrono::microseconds already_waited) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  // An answer often follows at once (a rank's next task, a fast result): yield a few times
  // before sleeping at all.
  WaitBackoff backoff(kWaitYields, kFirstSleep, kPromptSleep, max_sleep);
  backoff.resume(already_waited);
  MPI_Status status;
  int flag = 0;
  for (;;) {
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &status);
    if (flag) break;
    const auto now = Clock::now();
    if (now >= deadline) return std::nullopt;
    const std::chrono::microseconds pause = backoff.next();
    if (pause.count() == 0)
      sched_yield();
    else
      std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
  }
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  Envelope envelope{status.MPI_SOURCE, status.MPI_TAG, std::string(static_cast<std::size_t>(count), '\0')};
  MPI_Recv(envelope.payload.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return envelope;
}

Envelope mpi_receive(int source, int tag) {
  for (;;) {
    auto envelope = mpi_receive(source, tag, std::chrono::hours(1));
    if (envelope) return std::move(*envelope);
  }
}

}  // namespace hpcreward
