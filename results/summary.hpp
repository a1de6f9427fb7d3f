#pragma once
// The human summary of a run: per problem and stage, how many candidates, each status,
// and the best and median GFLOPS of the verified ones. When the rows carry technique data
// (schema 2 with detection), also the best candidate's techniques ("openmp ikj 64x64") and
// how many archive niches the group's rows opened. When a GPU timed any row (schema 3
// `device` other than "cpu"), also the device that timed each group's best candidate.
// It is computed here only: `hpcreward-results summary --json` (summary_json.hpp) hands it to
// the report and the live view (results/python).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/log_records.hpp"
#include "results/reward_row.hpp"
#include "results/text_table.hpp"

namespace hpcreward {

// One line of the summary: a (problem, stage), or the whole run (problem "total", stage "").
struct StageSummary {
  std::string problem;
  std::string stage;
  std::size_t candidates = 0;
  std::size_t ok = 0;
  std::size_t reused = 0;  // rows answered from an identical candidate's measurement (schema 5)
  std::size_t niches = 0;  // rows that opened a niche of the archive (schema 2)
  // Every status seen and its count, in the order of the status table in docs/design.md
  // (ok first), statuses it does not know last.
  std::vector<std::pair<std::string, std::size_t>> statuses;
  std::optional<RewardRow> best;        // the fastest verified row (finite GFLOPS)
  std::optional<double> median_gflops;  // of the verified rows (finite GFLOPS)
  double first_time = 0;                // the earliest and latest row `time`
  double last_time = 0;
};

// The same table, tallied row by row as a run writes them, so a long run need not keep its
// rows: per (problem, stage) counts, the best row and the ok rows' GFLOPS (for the median: 8
// bytes an ok row, nothing for other rows).
class RunSummary {
 public:
  RunSummary();
  ~RunSummary();
  RunSummary(RunSummary &&) noexcept;
  RunSummary &operator=(RunSummary &&) noexcept;
  void add(const RewardRow &row);
  std::size_t rows() const;
  // Per (problem, stage), in the order the run first scored them.
  std::vector<StageSummary> stages() const;
  StageSummary total() const;
  // The table `format` prints: columns that only some logs fill (reused, device, techniques
  // and niches) appear when a row fills them.
  TextTable table() const;
  // The table as text, or "no rows in the reward log" when there are none.
  std::string format() const;

 private:
  struct Tallies;
  std::unique_ptr<Tallies> tallies_;
};

std::string format_summary(const std::vector<RewardRow> &rows);

// A row's technique descriptor in a few words: "openmp+blocking ikj 64x64", "plain"; empty
// when detection did not run (or the log is schema 1).
std::string techniques_text(const RewardRow &row);

// Every stage event (time in UTC, problem, from -> to, rule, detail), then per problem the
// stage it is in now: the `to` of its last event.
std::string format_stage_events(const std::vector<StageEventRecord> &events);

// The archive as it stands after the last record: per problem and stage (first seen first),
// each niche (fastest elite first) with its elite, GFLOPS, the first 12 digits of the
// elite's source hash and how many times the niche changed (1 when it was opened).
std::string format_archive(const std::vector<ArchiveRecord> &records);

// The benchmark ranks a run lost (/rank_events, schema 4): a heading line, then per event
// its rank, host, time (UTC), event and reason. Empty when there are none.
std::string format_rank_events(const std::vector<RankEventRecord> &events);

// "2024-11-22 01:35:00" (UTC) for Unix seconds, or "-" for a time that is not one.
std::string utc_time_text(double unix_seconds);

}  // namespace hpcreward
