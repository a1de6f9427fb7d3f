#pragma once
// Identical candidates are measured once (coordinator/README.md "Identical candidates"); two
// candidates are identical when their measurement key is (measurement_key.hpp).
//   In one batch (or coalesced group) the first is sent to a rank and the others wait for its
//   answer, whatever it is, and share it, shaping bonus included: a GRPO group of identical
//   completions gets identical rewards.
//   In a later batch a candidate whose key the cache holds (measurement_cache.hpp: reusable
//   outcomes only) is answered from it at once. Batches in flight together do not wait for
//   each other's answers: an identical candidate of another batch still in flight is measured
//   on its own (each batch is answered by its own candidates).
// A cache of 0 entries turns both off: every candidate is measured. ScoringRun writes the
// rows; this decides which candidate is measured and which shares whose measurement.
// Candidates are named by their sequence, as tasks are; a batch by its `scope` (any number
// unique among the batches in flight).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/scoring/measurement_cache.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

class RepeatSharing {
 public:
  explicit RepeatSharing(std::size_t cache_entries) : cache_(cache_entries) {}

  // What becomes of a candidate about to be sent under `key`.
  struct Route {
    enum Kind {
      measure,  // send it to a rank
      reuse,    // answered from `earlier`, a measurement of an earlier batch
      wait,     // an identical candidate of this batch was sent: it waits for that answer
    } kind = measure;
    const CachedMeasurement *earlier = nullptr;  // reuse: valid until the cache changes
  };
  Route route(std::int64_t sequence, const std::string &key, std::uint64_t scope = 0);

  // A measured candidate's answer came. Its key, and the candidates of the batch that waited
  // for it: each gets a row that shares the answer. Once per measured candidate.
  struct Answered {
    std::string key;
    std::vector<std::int64_t> waiting;
  };
  Answered answered(std::int64_t sequence);
  // Keeps a measurement for later batches (reusable outcomes only; see measurement_cache.hpp).
  void remember(const std::string &key, CachedMeasurement measurement) { cache_.remember(key, std::move(measurement)); }
  // How many candidates still wait for an answer (a stop leaves them without a row).
  std::size_t waiting() const;
  // Batch `scope` is done (or given up): its measured and waiting candidates are forgotten,
  // the cache stays.
  void end_batch(std::uint64_t scope = 0);

  // A resumed run: the log's rows, in order, refill the cache (MeasurementCache::recall).
  void recall(const std::vector<RewardRow> &rows) { cache_.recall(rows); }

 private:
  bool sharing() const { return cache_.capacity() > 0; }

  MeasurementCache cache_;
  // Batches in flight: the key of each measured candidate, the one measured for each (batch,
  // key), and the candidates waiting for each measured one.
  std::map<std::int64_t, std::string> key_of_;
  std::map<std::pair<std::uint64_t, std::string>, std::int64_t> measured_for_;
  std::map<std::int64_t, std::vector<std::int64_t>> waiting_;
};

}  // namespace hpcreward
