#pragma once
// Rank 0's memory of measurements by measurement key, so an identical candidate
// is answered from its earlier measurement instead of being benchmarked again.
//
// Which outcomes are kept (reusable()): those the code itself decides under the key's rules:
// ok, wrong_answer, compile_error, forbidden, constraint_violation and a rank's format_error.
// timeout and runtime_error are not kept: they can be the node's doing (a loaded machine, a
// memory limit hit because of a neighbour, a transient sandbox failure), so a repeat in a later
// batch is measured again. Nor is a compile_error that a limit or the node decided (the
// compiler or the checker's parser timed out, was killed, ran out of memory, did not start; the
// object could not be read): a loaded node compiles slowly. A candidate whose result depends on chance (a data race) is judged
// once per entry, as one re-measurement would judge it.
//
// Bounded: at most `capacity` entries; inserting into a full cache evicts the least recently
// used entry (inserted or answered longest ago). An evicted candidate is simply measured again
// when it comes back. Capacity 0 keeps nothing.
#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/messages.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

// --repeat-cache-entries' default: a few MB of rank 0's memory (an entry is 1-2 KB),
// enough for the distinct candidates of several GRPO steps.
inline constexpr std::size_t kDefaultRepeatCacheEntries = 4096;
// The most it may be given: 1-2 GB.
inline constexpr std::size_t kMaxRepeatCacheEntries = 1000000;

// A measurement and the row that holds it.
struct CachedMeasurement {
  Measurement measurement;  // its reason cut as the log cuts it; no technique evidence
  std::string candidate_id;  // of the row that measured it
  std::string batch_id;
  int rank = 0;
  std::string host;
  std::string device;
  std::uint64_t seed = 0;  // its inputs
  // What the model was told about it (RowWriter::feedback_on: made from the whole reason, at
  // most 512 bytes), kept whole so a row that reuses it tells the same; "": made again from
  // `measurement`.
  std::string feedback;
};

class MeasurementCache {
 public:
  explicit MeasurementCache(std::size_t capacity) : capacity_(capacity) {}

  // Whether a measurement is kept (see above).
  static bool reusable(const Measurement &measurement);

  // The entry for `key`, or null; a hit makes it the most recently used.
  const CachedMeasurement *find(const std::string &key);
  // Keeps `entry` under `key` if its measurement is reusable (replacing an older one), evicting
  // the least recently used entry when full.
  void remember(const std::string &key, CachedMeasurement entry);
  // A resumed run: replays the log's rows in order. Rows measured for themselves with a key
  // and a reusable status are remembered; rows that reused one refresh it, as their hit did.
  void recall(const std::vector<RewardRow> &rows);

  std::size_t size() const { return entries_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  using Entry = std::pair<std::string, CachedMeasurement>;
  std::size_t capacity_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_key_;
};

// The measurement a logged row holds (status, reason, timings, technique descriptor), or
// nullopt when its status is not a Status name.
std::optional<Measurement> measurement_from_row(const RewardRow &row);

}  // namespace hpcreward
