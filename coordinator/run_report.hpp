#pragma once
// What the coordinator prints while it works: one line per row, one per stage event, and
// at the end where each problem stands on the ladder and how full its archive is.
#include <cstddef>
#include <string>
#include <vector>

#include "common/messages.hpp"

#include "coordinator/sqd_state.hpp"
#include "results/reward_row.hpp"
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

}  // namespace hpcreward
