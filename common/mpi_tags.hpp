#pragma once
// MPI message tags between the coordinator (rank 0) and the benchmark ranks, and what each
// payload is (sent as MPI_BYTE, common/mpi_channel.hpp). The per-candidate messages are binary
// (common/messages_binary.hpp); the once-per-rank hello is a JSON text (common/messages_json.hpp).
namespace hpcreward {

enum MpiTag : int {
  kTagHello = 1,   // bench -> coordinator: RankInfo as JSON, once at start
  kTagTask = 2,    // coordinator -> bench: BenchTask, encode_task
  kTagResult = 3,  // bench -> coordinator: BenchResult, encode_result
  kTagStop = 4,    // coordinator -> bench: empty; finish and exit
};

}  // namespace hpcreward
