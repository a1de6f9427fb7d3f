#pragma once
// What a scoring run tells its caller as it goes (ScoringRun): the coordinator prints it
// (console_observer.hpp), serve mode also tells its batch registry, tests record it. Every
// method does nothing unless overridden.
#include <cstddef>
#include <string>

#include "results/log_records.hpp"
#include "results/reward_row.hpp"
#include "stages/advancement.hpp"

namespace hpcreward {

class ScoringObserver {
 public:
  virtual ~ScoringObserver() = default;
  // A row is in the sink; `done` of `total` candidates of this call have their rows.
  virtual void row_written(const RewardRow & /*row*/, std::size_t /*done*/, std::size_t /*total*/) {}
  // A problem moved up its stage ladder (the event is in the sink).
  virtual void stage_advanced(const StageEvent & /*event*/) {}
  // A rank was quarantined (the event is in the sink).
  virtual void rank_lost(const RankEventRecord & /*event*/) {}
  // A line for the operator: a stop begins or ends, a late answer is discarded.
  virtual void note(const std::string & /*line*/) {}
};

}  // namespace hpcreward
