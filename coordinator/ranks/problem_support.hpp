#pragma once
// Which problems a run can score. C problems run on "cpu" benchmark ranks, CUDA problems on
// "gpu" ranks (RankInfo::kind, said in each rank's hello), and each climbs its language's
// stage ladder ("ladder" or "cuda_ladder"). A problem that no rank of the run can score, or
// whose language has no ladder, is refused: the whole run at start (main), or the request
// that names it in serve mode (422), never a candidate left queued with no rank to take it.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/messages.hpp"
#include "common/problem.hpp"
#include "coordinator/input/candidate_input.hpp"
#include "results/reward_row.hpp"
#include "stages/ladder_config.hpp"

namespace hpcreward {

inline constexpr std::string_view kCpuRankKind = "cpu";
inline constexpr std::string_view kGpuRankKind = "gpu";
// "cpu" for C, "gpu" for CUDA.
std::string_view rank_kind_for(Language language);

// Why the coordinator cannot use a rank as it introduced itself (a kind other than "cpu" or
// "gpu", slots outside 1..kMaxRankSlots); nullopt when it can.
inline constexpr int kMaxRankSlots = 64;
std::optional<std::string> rank_info_error(const RankInfo &info);

// What a run has to score problems with.
struct RunCapabilities {
  std::map<std::string, std::size_t> ranks_by_kind;  // "cpu" -> 4, "gpu" -> 2
  const LadderConfig *ladder = nullptr;              // null: not checked
  std::string ladder_source;                         // for messages
};
RunCapabilities run_capabilities(const std::vector<RankInfo> &ranks, const LadderConfig *ladder,
                                 std::string ladder_source);

// "3 CPU, 1 GPU" for the start line.
std::string format_rank_kinds(const RunCapabilities &run);

// Why this run cannot score `problem`: what it needs and what to do ("cuda-sgemm-4096 needs a
// GPU rank: start with jobs/local.sh --gpus N ..."; a CUDA ladder with a CuTe stage and a GPU
// rank without CuTe headers); nullopt when it can.
std::optional<std::string> problem_refusal(const Problem &problem, const RunCapabilities &run);

// At start, serve mode: `--problem` is what candidates that name no problem get.
std::optional<std::string> default_problem_refusal(const std::string &problem, const RunCapabilities &run);

// At start, file mode: the lines still to be scored (`logged[i]` non-null: already in the log
// of a resumed run). A line whose problem is unknown is not a refusal: it gets a format_error
// row like any malformed line. Names the first refused problem, how many lines are for it and
// the first of them.
std::optional<std::string> candidates_refusal(const std::vector<PreparedCandidate> &candidates,
                                              const std::vector<const RewardRow *> &logged,
                                              const RunCapabilities &run);

}  // namespace hpcreward
