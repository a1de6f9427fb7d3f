// Two MPI ranks: rank 0 sends a task (one small, one of 4 MiB: above any eager limit, so the
// PendingSends path really waits for the receiver) and a stop; rank 1 says hello as JSON,
// answers each task with a result built from it, and exits on stop. Rank 0 checks every
// field that came back. Exit status 0 when all arrived intact.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "common/messages_binary.hpp"
#include "common/messages_json.hpp"
#include "common/mpi_channel.hpp"
#include "common/mpi_tags.hpp"
#include "common/private_memory.hpp"
#include "tests/common/message_samples.hpp"

namespace hpcreward {
namespace {

int failures = 0;

void check(bool ok, const std::string &what) {
  if (!ok) {
    std::fprintf(stderr, "mpi_channel_roundtrip: FAILED: %s\n", what.c_str());
    ++failures;
  }
}

BenchResult answer(const BenchTask &task) {
  BenchResult result = test::full_result();
  result.sequence = task.sequence;
  result.measurement.reason = task.candidate_id + ":" + std::to_string(task.source.size());
  return result;
}

void bench_rank() {
  RankInfo info;
  info.host = "roundtrip-host";
  info.slots = 3;
  mpi_send_json(nlohmann::json(info), 0, kTagHello);
  for (;;) {
    const Envelope envelope = mpi_receive(0, MPI_ANY_TAG);
    if (envelope.tag == kTagStop) {
      if (!envelope.payload.empty()) std::fprintf(stderr, "mpi_channel_roundtrip: stop carried a payload\n");
      return;
    }
    mpi_send_bytes(encode_result(answer(decode_task(envelope.payload))), 0, kTagResult);
  }
}

void coordinator_rank() {
  const auto hello = mpi_receive(1, kTagHello, std::chrono::seconds(30));
  check(hello.has_value(), "hello within 30 s");
  if (!hello) return;
  const RankInfo info = json_payload(*hello).get<RankInfo>();
  check(info.host == "roundtrip-host" && info.slots == 3, "hello fields");

  BenchTask small = test::full_task();
  BenchTask large = test::full_task();
  large.sequence = small.sequence + 1;
  large.candidate_id = "large";
  large.source = std::string(4 << 20, 'x');
  PendingSends sends;
  sends.send(encode_task(small), 1, kTagTask);
  sends.send(encode_task(large), 1, kTagTask);
  for (const BenchTask *task : {&small, &large}) {
    sends.progress();
    // Probing drives MPI's progress, so the large task moves while rank 0 waits here.
    const std::optional<Envelope> envelope = mpi_receive(1, kTagResult, std::chrono::seconds(30));
    check(envelope.has_value(), "result for " + task->candidate_id + " within 30 s");
    if (!envelope) return;
    const BenchResult got = decode_result(envelope->payload);
    const BenchResult want = answer(*task);
    check(envelope->source == 1 && envelope->tag == kTagResult, "result envelope");
    check(got.sequence == want.sequence, "result sequence of " + task->candidate_id);
    check(got.measurement.reason == want.measurement.reason, "task fields seen by the rank: " + got.measurement.reason);
    check(got.measurement.techniques == want.measurement.techniques, "techniques");
    check(got.host == want.host && got.device == want.device && got.measurement.reps == want.measurement.reps,
          "result fields");
  }
  check(sends.progress() == 0, "every task send completed");
  mpi_send_bytes({}, 1, kTagStop);
}

}  // namespace
}  // namespace hpcreward

int main(int argc, char **argv) {
  // As the ranks do: the 4 MiB task then travels without the single-copy transport.
  hpcreward::make_rank_memory_private();
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "mpi_channel_roundtrip: run with exactly 2 ranks (mpirun -np 2)\n");
    MPI_Finalize();
    return 2;
  }
  if (rank == 0)
    hpcreward::coordinator_rank();
  else
    hpcreward::bench_rank();
  int local = hpcreward::failures, total = 0;
  MPI_Reduce(&local, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && total == 0) std::printf("mpi_channel_roundtrip: ok\n");
  return total == 0 ? 0 : 1;
}
