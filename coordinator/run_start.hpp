#pragma once
// The start of a run, before its log is created or extended: the phases main.cpp's run() goes
// through, each a refusal with a message that says what to change, or what the run needs.
// Pure (no MPI, no log writes) except where it says so.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "common/messages.hpp"
#include "coordinator/options.hpp"
#include "coordinator/reward_table.hpp"
#include "coordinator/scoring_run.hpp"

namespace hpcreward {

// OUT/rewards.h5, which must exist with --resume and must not without (reads the file system;
// throws std::invalid_argument saying which option to change).
std::filesystem::path checked_log_path(const CoordinatorOptions &options);

// The benchmark ranks' hellos, checked: each must be one this coordinator can use, and ranks
// that measure nothing (--null-measurement) are refused unless runtime_error is penalized.
// Returns how many ranks are null; throws std::runtime_error or std::invalid_argument.
std::size_t check_ranks(const std::vector<RankInfo> &ranks, const RewardTable &rewards);

// Whether every CPU rank has AVX-512: C stages run on CPU ranks only, so only they decide.
bool cpu_ranks_have_avx512(const std::vector<RankInfo> &ranks);

// What scoring needs to know of the run: its ranks, the coordinator's host, and the options
// that shape scoring (seed, deadlines, the stop grace, the repeat cache). The stop check and
// the clock are left to the caller.
ScoringContext scoring_context(const CoordinatorOptions &options, const std::vector<RankInfo> &ranks,
                               std::string host);

}  // namespace hpcreward
