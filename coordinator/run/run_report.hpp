#pragma once
// What the coordinator prints: what a run starts with, one line per row, one per stage
// event, and at the end the summary, where each problem stands on the ladder and how full its
// archive is.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "common/messages.hpp"
#include "coordinator/run/options.hpp"
#include "coordinator/run/run_log.hpp"
#include "coordinator/run/run_start.hpp"
#include "coordinator/rewards/sqd_state.hpp"
#include "results/log_records.hpp"
#include "results/reward_row.hpp"
#include "results/summary.hpp"
#include "stages/advancement.hpp"

namespace hpcreward {

// A reused measurement ends the line with "(measured as ID of BATCH)".
std::string format_progress_line(const RewardRow &row, std::size_t done, std::size_t total);
std::string format_stage_event(const StageEvent &event);
// "stages: dgemm-256 at blocking (archive: 3 niches over 5 stages)" per problem.
std::string format_sqd_state(const SqdState &state);
// The answer deadlines the ranks are held to (rank_watch.hpp), one line per kind and task
// limit: "deadline: cpu ranks 1,2 must answer within 160 s (task limit 100 s + margin 60 s) ...",
// and a note per rank that reported no task limit.
std::vector<std::string> format_rank_deadlines(const std::vector<RankInfo> &ranks, double margin_s);

// The lines a run starts with, each ending in a newline: what it scores (`candidates` of a
// file) on which ranks into which log, the null ranks, what a resumed log holds and where
// each problem stands, the ranks' answer deadlines.
std::string format_run_start(const CoordinatorOptions &options, std::size_t candidates, const StartedRanks &ranks,
                             const std::filesystem::path &log_path, const LoggedRun &logged, const SqdState &state);
// The lines a run ends with: the summary table, where each problem stands, the ranks lost,
// and the log's rows (`rows_written` of them now).
std::string format_run_end(const RunSummary &summary, const SqdState &state, const std::vector<RankEventRecord> &lost,
                           const std::filesystem::path &log_path, std::size_t rows, std::size_t rows_written);

}  // namespace hpcreward
