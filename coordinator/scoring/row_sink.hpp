#pragma once
// Where scored rows, stage events, archive changes and rank events go: the HDF5 reward log
// in production, vectors in tests.
#include <string_view>

#include "results/log_records.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

class RowSink {
 public:
  virtual ~RowSink() = default;
  // `source` is the candidate's code (empty when none was extracted).
  virtual void append(const RewardRow &row, std::string_view source) = 0;
  virtual void append_event(const StageEventRecord &event) = 0;
  virtual void append_archive(const ArchiveRecord &record) = 0;
  // A benchmark rank was quarantined (/rank_events).
  virtual void append_rank_event(const RankEventRecord &event) = 0;
  // Makes every row appended so far durable (a sink that batches writes them now); the
  // coordinator calls it before it waits and before it answers a served batch.
  virtual void flush() {}
};

}  // namespace hpcreward
