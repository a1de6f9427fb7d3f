#pragma once
// MPI message tags between the coordinator (rank 0) and the benchmark ranks.
// Every payload is a JSON text (common/messages_json.hpp) sent as MPI_CHAR.
namespace hpcreward {

enum MpiTag : int {
  kTagHello = 1,   // bench -> coordinator: RankInfo, once at start
  kTagTask = 2,    // coordinator -> bench: BenchTask
  kTagResult = 3,  // bench -> coordinator: BenchResult
  kTagStop = 4,    // coordinator -> bench: empty; finish and exit
};

}  // namespace hpcreward
