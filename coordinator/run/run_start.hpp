#pragma once
// The start of a run, before its log is created or extended (run_coordinator.hpp goes
// through these in order): each a refusal with a message that says what to change, or what
// the run needs. Pure (no log writes) except where it says so.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "common/messages.hpp"
#include "coordinator/run/bench_world.hpp"
#include "coordinator/input/candidate_input.hpp"
#include "coordinator/run/options.hpp"
#include "coordinator/ranks/problem_support.hpp"
#include "coordinator/rewards/reward_table.hpp"
#include "coordinator/scoring/scoring_run.hpp"
#include "coordinator/rewards/sqd_state.hpp"

namespace hpcreward {

// OUT/rewards.h5, which must exist with --resume and must not without (reads the file system;
// throws std::invalid_argument saying which option to change).
std::filesystem::path checked_log_path(const CoordinatorOptions &options);

// What a candidate line that names no problem, stage or batch gets, and what every line is
// held to (the ladder's stages, --max-source-bytes).
CandidateDefaults candidate_defaults(const CoordinatorOptions &options);

// The benchmark ranks' hellos, checked: each must be one this coordinator can use, and ranks
// that measure nothing (--null-measurement) are refused unless runtime_error is penalized.
// Returns how many ranks are null; throws std::runtime_error or std::invalid_argument.
std::size_t check_ranks(const std::vector<RankInfo> &ranks, const RewardTable &rewards);

// Whether every CPU rank has AVX-512 (C stages run on CPU ranks only, so only they decide) and
// every GPU rank Hopper's wgmma and TMA (its nvcc arch is sm_90a).
RankSupport rank_support(const std::vector<RankInfo> &ranks);

// The benchmark ranks as the run starts: their hellos, checked (check_ranks).
struct StartedRanks {
  std::vector<RankInfo> ranks;
  std::size_t null_ranks = 0;    // ranks that run --null-measurement
  RankSupport support;           // rank_support
  RunCapabilities capabilities;  // what the run can score (its ladder is options.ladder)
};
// Waits for every benchmark rank's hello (--rank-start-timeout-s) and checks them; throws
// saying what is wrong.
StartedRanks start_ranks(BenchWorld &world, const CoordinatorOptions &options);

// Refuses (std::invalid_argument) a problem no rank of the run can score before the log
// exists, not left queued: in serve mode --problem, in file mode every line still to score
// (the lines `logged_rows` of a resumed run account for are done).
void refuse_unscorable(const CoordinatorOptions &options, const std::vector<PreparedCandidate> &candidates,
                       const std::vector<RewardRow> &logged_rows, const RunCapabilities &capabilities);

// Ladder stages these ranks cannot run. Under the ladder's "avx512_unsupported": "refuse" a C
// stage stops the run (std::runtime_error saying what to change); otherwise the notes to print,
// one per stage problems skip (a CUDA stage that needs a Hopper always is).
std::vector<std::string> host_support_notes(const SqdState &state);

// What scoring needs to know of the run: its ranks, the coordinator's host, and the options
// that shape scoring (seed, deadlines, the stop grace, the repeat cache). The stop check and
// the clock are left to the caller.
ScoringContext scoring_context(const CoordinatorOptions &options, const std::vector<RankInfo> &ranks,
                               std::string host);

}  // namespace hpcreward
