#pragma once
// What the coordinator prints while it scores (a line per row, per stage event, per
// quarantine, per note) and what it keeps for the end of the run: the summary table, the
// outcome's row counts and lost ranks. In serve mode it also tells the batch registry of each
// row (a running batch's progress).
#include <vector>

#include "coordinator/serving/batch_registry.hpp"
#include "coordinator/run/console.hpp"
#include "coordinator/run/run_outcome.hpp"
#include "coordinator/scoring/scoring_observer.hpp"
#include "results/summary.hpp"

namespace hpcreward {

class ConsoleObserver : public ScoringObserver {
 public:
  // `registry`: serve mode's, else null. `outcome.rows_in_log` counts the log's rows from
  // before (a resumed run); every row written adds one.
  ConsoleObserver(Console &console, RunOutcome &outcome, BatchRegistry *registry);

  // A resumed run's logged rows count in the summary as if written now.
  void count_logged(const std::vector<RewardRow> &rows);
  // The end-of-run table, tallied as rows are written (a long run keeps no rows for it).
  const RunSummary &summary() const { return summary_; }

  void row_written(const RewardRow &row, std::size_t done, std::size_t total) override;
  void stage_advanced(const StageEvent &event) override;
  void rank_lost(const RankEventRecord &event) override;
  void note(const std::string &line) override;

 private:
  Console &console_;
  RunOutcome &outcome_;
  BatchRegistry *registry_;
  RunSummary summary_;
};

}  // namespace hpcreward
