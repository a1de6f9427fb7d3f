#include "common/mpi_channel.hpp"

#include <stdexcept>
#include <thread>

namespace hpcreward {

void mpi_send_json(const nlohmann::json &body, int destination, int tag) {
  const std::string text = body.dump();
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, destination, tag, MPI_COMM_WORLD);
}

PendingSends::~PendingSends() {
  progress();
  for (Send &send : sends_) static_cast<void>(send.text.release());
}

void PendingSends::send(const nlohmann::json &body, int destination, int tag) {
  progress();
  Send send{std::make_unique<std::string>(body.dump()), MPI_REQUEST_NULL};
  MPI_Isend(send.text->data(), static_cast<int>(send.text->size()), MPI_CHAR, destination, tag, MPI_COMM_WORLD,
            &send.request);
  sends_.push_back(std::move(send));
}

std::size_t PendingSends::progress() {
  std::erase_if(sends_, [](Send &send) {
    int done = 0;
    MPI_Test(&send.request, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
  return sends_.size();
}

std::optional<Envelope> mpi_receive_json(int source, int tag, std::chrono::milliseconds timeout,
                                         std::chrono::microseconds poll) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MPI_Status status;
  int flag = 0;
  for (;;) {
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &status);
    if (flag) break;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(poll);
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
