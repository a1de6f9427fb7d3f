#pragma once
// The run's log as the run starts: what a resumed run's log already holds, the ladder's state
// rebuilt from it, and the writer that goes on with it or creates a new one. Reads and
// writes OUT/rewards.h5 (checked_log_path in run_start.hpp says whether it must exist).
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "common/messages.hpp"
#include "common/problem_catalog.hpp"
#include "coordinator/rewards/reward_mode.hpp"
#include "coordinator/rewards/sqd_state.hpp"
#include "results/log_records.hpp"
#include "results/provenance.hpp"
#include "results/reward_log.hpp"
#include "results/reward_row.hpp"
#include "stages/ladder_config.hpp"

namespace hpcreward {

// What a resumed run's log holds (a new run: nothing).
struct LoggedRun {
  bool resumed = false;
  std::vector<RewardRow> rows;
  std::vector<StageEventRecord> events;
  std::vector<ArchiveRecord> archive;
  Provenance provenance;
};
LoggedRun read_logged_run(const std::filesystem::path &log_path);

// With --resume: every problem the log's rows name must be in `catalog`, defined as in the
// catalog the run began with (its provenance; "default" for logs from before catalogs), or the
// resumed stages and rewards would mix problems. Throws std::invalid_argument saying which.
void check_resumed_problems(const LoggedRun &logged, const ProblemCatalog &catalog);
// A resumed log keeps one reward mode: throws std::invalid_argument naming the log's when
// `mode` is another.
void check_resumed_reward_mode(const LoggedRun &logged, const RewardMode &mode);

// The seed the logged run was started with: a resumed run goes on with it, so a candidate
// scored now gets the inputs it would have got before.
std::uint64_t logged_seed(const LoggedRun &logged);

// The ladder's state: new for a new run, else rebuilt from its rows and events (each
// row's BLAS baseline from `rank_info`, as ScoringRun counts it). `missing_archive` receives
// the archive records a crash kept out of the log.
SqdState ladder_state(const LadderConfig &ladder, const RankSupport &support, const LoggedRun &logged,
                      const std::map<int, RankInfo> &rank_info, std::vector<ArchiveRecord> &missing_archive);

// The log's writer: a new log with `new_log` (its provenance), or without it the existing log,
// reopened to go on. `missing_archive` is appended first. Rows are written in bursts
// (results/README.md "When rows reach the file"): flushed when rank 0 is about to wait,
// before a served batch is answered, and at the end.
std::unique_ptr<RewardLogWriter> open_log_writer(const std::filesystem::path &log_path,
                                                 const std::optional<Provenance> &new_log,
                                                 const std::vector<ArchiveRecord> &missing_archive);

}  // namespace hpcreward
