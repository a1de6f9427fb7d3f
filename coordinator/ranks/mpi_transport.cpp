#include "coordinator/ranks/mpi_transport.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "common/messages_binary.hpp"
#include "common/messages_json.hpp"
#include "common/mpi_channel.hpp"
#include "common/mpi_tags.hpp"

namespace hpcreward {
namespace {
// The coordinator shares its node with timed candidates: a long wait settles into one look
// per kMaxSleep (a result that comes then waits at most that long; candidates take seconds).
constexpr std::chrono::microseconds kMaxSleep(10000);
}  // namespace

void MpiTransport::send_task(int rank, const BenchTask &task) {
  sends_.send(encode_task(task), rank, kTagTask);
  quiet_since_.reset();  // an answer may follow soon: look promptly again
}

std::optional<BenchResult> MpiTransport::receive_result(std::chrono::milliseconds timeout) {
  sends_.progress();
  using Clock = std::chrono::steady_clock;
  const Clock::time_point now = Clock::now();
  if (!quiet_since_) quiet_since_ = now;
  const auto waited = std::chrono::duration_cast<std::chrono::microseconds>(now - *quiet_since_);
  auto envelope = mpi_receive(MPI_ANY_SOURCE, kTagResult, timeout, kMaxSleep, waited);
  if (!envelope) return std::nullopt;
  quiet_since_.reset();
  BenchResult result;
  try {
    result = decode_result(envelope->payload);
  } catch (const MessageDecodeError &error) {  // our own rank broke the protocol: stop the run
    throw std::runtime_error("rank " + std::to_string(envelope->source) + " sent a result that does not decode (" +
                             std::to_string(envelope->payload.size()) + " bytes): " + error.what());
  }
  result.rank = envelope->source;  // trust MPI, not the payload, for who sent it
  return result;
}

std::vector<RankInfo> gather_rank_info(int world_size, std::chrono::seconds timeout) {
  std::vector<RankInfo> infos;
  std::set<int> missing;
  for (int rank = 1; rank < world_size; ++rank) missing.insert(rank);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!missing.empty()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    auto envelope = left.count() > 0 ? mpi_receive(MPI_ANY_SOURCE, kTagHello, left, kMaxSleep)
                                     : std::nullopt;
    if (!envelope) {
      std::string names;
      for (int rank : missing) names += " " + std::to_string(rank);
      throw std::runtime_error("benchmark ranks did not start within " +
                               std::to_string(timeout.count()) + " s:" + names);
    }
    RankInfo info = json_payload(*envelope).get<RankInfo>();
    info.rank = envelope->source;
    missing.erase(info.rank);
    infos.push_back(info);
  }
  std::sort(infos.begin(), infos.end(),
            [](const RankInfo &a, const RankInfo &b) { return a.rank < b.rank; });
  return infos;
}

void stop_bench_ranks(int world_size) {
  static bool stopped = false;
  if (stopped) return;
  stopped = true;
  for (int rank = 1; rank < world_size; ++rank) mpi_send_bytes({}, rank, kTagStop);
}

}  // namespace hpcreward
