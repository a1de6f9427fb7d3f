#include "common/mpi_channel.hpp"

#include <sched.h>

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
}  // namespace

void mpi_send_json(const nlohmann::json &body, int destination, int tag) {
  const std::string text = body.dump();
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, destination, tag, MPI_COMM_WORLD);
}

PendingSends::~PendingSends() {
  progress();
  for (std::unique_ptr<std::string> &text : texts_) static_cast<void>(text.release());
}

void PendingSends::send(const nlohmann::json &body, int destination, int tag) {
  texts_.push_back(std::make_unique<std::string>(body.dump()));
  requests_.push_back(MPI_REQUEST_NULL);
  MPI_Isend(texts_.back()->data(), static_cast<int>(texts_.back()->size()), MPI_CHAR, destination, tag,
            MPI_COMM_WORLD, &requests_.back());
}

std::size_t PendingSends::progress() {
  if (requests_.empty()) return 0;
  std::vector<int> done(requests_.size());
  int count = 0;
  MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, done.data(), MPI_STATUSES_IGNORE);
  if (count == MPI_UNDEFINED || count == 0) return requests_.size();
  // Completed requests are MPI_REQUEST_NULL now: drop them with their texts.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) continue;
    requests_[kept] = requests_[i];
    texts_[kept] = std::move(texts_[i]);
    ++kept;
  }
  requests_.resize(kept);
  texts_.resize(kept);
  return kept;
}

std::optional<Envelope> mpi_receive_json(int source, int tag, std::chrono::milliseconds timeout,
                                         std::chrono::microseconds max_sleep) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  // An answer often follows at once (a rank's next task, a fast result): yield a few times
  // before sleeping at all.
  WaitBackoff backoff(kWaitYields, kFirstSleep, kPromptSleep, max_sleep);
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
  MPI_Get_count(&status, MPI_CHAR, &count);
  std::string text(static_cast<std::size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  Envelope envelope{status.MPI_SOURCE, status.MPI_TAG, nlohmann::json()};
  if (!text.empty()) envelope.body = nlohmann::json::parse(text);
  return envelope;
}

Envelope mpi_receive_json(int source, int tag) {
  for (;;) {
    auto envelope = mpi_receive_json(source, tag, std::chrono::hours(1));
    if (envelope) return *envelope;
  }
}

}  // namespace hpcreward
