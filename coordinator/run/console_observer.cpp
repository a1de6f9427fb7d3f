#include "coordinator/run/console_observer.hpp"

#include "coordinator/run/run_report.hpp"

namespace hpcreward {

ConsoleObserver::ConsoleObserver(Console &console, RunOutcome &outcome, BatchRegistry *registry)
    : console_(console), outcome_(outcome), registry_(registry) {}

void ConsoleObserver::count_logged(const std::vector<RewardRow> &rows) {
  for (const RewardRow &row : rows) summary_.add(row);
}

void ConsoleObserver::row_written(const RewardRow &row, std::size_t done, std::size_t total) {
  if (registry_) registry_->row_written(row.batch_id);
  summary_.add(row);
  ++outcome_.rows_written;
  ++outcome_.rows_in_log;
  console_.progress(format_progress_line(row, done, total));
}

void ConsoleObserver::stage_advanced(const StageEvent &event) { console_.line(format_stage_event(event)); }

void ConsoleObserver::rank_lost(const RankEventRecord &event) {
  outcome_.lost_ranks.push_back(event);
  console_.line("quarantined: rank " + std::to_string(event.rank) + " on " + event.host + ": " + event.reason);
}

void ConsoleObserver::note(const std::string &line) { console_.line(line); }

}  // namespace hpcreward
