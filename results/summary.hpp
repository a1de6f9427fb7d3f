#pragma once
// The human summary of a run: per problem and stage, how many candidates, each status,
// and the best and median GFLOPS of the verified ones. When the rows carry technique data
// (schema 2 with detection), also the best candidate's techniques ("openmp ikj 64x64") and
// how many archive niches the group's rows opened. When a GPU timed any row (schema 3
// `device` other than "cpu"), also the device that timed each group's best candidate.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "results/log_records.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

// The same table, tallied row by row as a run writes them, so a long run need not keep its
// rows: per (problem, stage) counts, the best row's fields and the ok rows' GFLOPS (for the
// median: 8 bytes an ok row, nothing for other rows).
class RunSummary {
 public:
  RunSummary();
  ~RunSummary();
  RunSummary(RunSummary &&) noexcept;
  RunSummary &operator=(RunSummary &&) noexcept;
  void add(const RewardRow &row);
  std::size_t rows() const;
  std::string format() const;

 private:
  struct Tallies;
  std::unique_ptr<Tallies> tallies_;
};

std::string format_summary(const std::vector<RewardRow> &rows);

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
