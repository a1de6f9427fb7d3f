#include "coordinator/ranks/problem_support.hpp"

#include <cctype>

#include "common/problem_catalog.hpp"

namespace hpcreward {
namespace {

std::size_t count_of(const RunCapabilities &run, std::string_view kind) {
  auto it = run.ranks_by_kind.find(std::string(kind));
  return it == run.ranks_by_kind.end() ? 0 : it->second;
}

// "4 CPU ranks and no GPU rank"
std::string ranks_text(const RunCapabilities &run) {
  auto part = [](std::size_t count, const char *kind) {
    if (count == 0) return std::string("no ") + kind + " rank";
    return std::to_string(count) + " " + kind + (count == 1 ? " rank" : " ranks");
  };
  return part(count_of(run, kCpuRankKind), "CPU") + " and " + part(count_of(run, kGpuRankKind), "GPU");
}

}  // namespace

std::string_view rank_kind_for(Language language) {
  return language == Language::cuda ? kGpuRankKind : kCpuRankKind;
}

std::optional<std::string> rank_info_error(const RankInfo &info) {
  const std::string who = "benchmark rank " + std::to_string(info.rank) + " (" + info.host + ")";
  if (info.kind != kCpuRankKind && info.kind != kGpuRankKind)
    return who + " says it is of kind \"" + info.kind +
           "\"; the coordinator knows \"cpu\" and \"gpu\": run the same hpcreward build on every rank";
  if (info.slots < 1 || info.slots > kMaxRankSlots)
    return who + " asks for " + std::to_string(info.slots) + " task slots; 1 to " + std::to_string(kMaxRankSlots) +
           " are allowed";
  return std::nullopt;
}

RunCapabilities run_capabilities(const std::vector<RankInfo> &ranks, const LadderConfig *ladder,
                                 std::string ladder_source) {
  RunCapabilities run;
  for (const RankInfo &info : ranks) ++run.ranks_by_kind[info.kind];
  run.ladder = ladder;
  run.ladder_source = std::move(ladder_source);
  return run;
}

std::string format_rank_kinds(const RunCapabilities &run) {
  std::string text;
  for (const auto &[kind, count] : run.ranks_by_kind) {
    std::string name = kind;
    for (char &c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + name;
  }
  return text;
}

std::optional<std::string> problem_refusal(const Problem &problem, const RunCapabilities &run) {
  const std::string_view kind = rank_kind_for(problem.language);
  if (count_of(run, kind) == 0) {
    if (problem.language == Language::cuda)
      return problem.id + " needs a GPU rank: start with jobs/local.sh --gpus N (hpcreward-bench --gpu ranks "
                          "in the MPI job); this run has " + ranks_text(run);
    return problem.id + " needs a CPU rank: start with jobs/local.sh --np N, N >= 1 (hpcreward-bench ranks "
                        "without --gpu in the MPI job); this run has " + ranks_text(run);
  }
  if (run.ladder && run.ladder->ladder_for(problem.language).empty())
    return problem.id + " is a CUDA problem and the stage ladder " + run.ladder_source +
           " has no \"cuda_ladder\": add one (see stages/default_ladder.json)";
  return std::nullopt;
}

std::optional<std::string> default_problem_refusal(const std::string &problem, const RunCapabilities &run) {
  const Problem *spec = find_problem(problem);
  if (!spec) return std::nullopt;  // options parsing refuses unknown problems
  if (std::optional<std::string> reason = problem_refusal(*spec, run))
    return "--problem " + problem + " (the problem of candidates that name none): " + *reason +
           "; or give --problem a problem this run can score";
  return std::nullopt;
}

std::optional<std::string> candidates_refusal(const std::vector<PreparedCandidate> &candidates,
                                              const std::vector<const RewardRow *> &logged,
                                              const RunCapabilities &run) {
  std::optional<std::string> refused_problem, reason, first_id;
  std::size_t lines = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i < logged.size() && logged[i]) continue;
    const std::string &problem = candidates[i].problem;
    if (refused_problem) {
      if (problem == *refused_problem) ++lines;
      continue;
    }
    const Problem *spec = find_problem(problem);
    if (!spec) continue;
    if (std::optional<std::string> why = problem_refusal(*spec, run)) {
      refused_problem = problem;
      reason = std::move(why);
      first_id = candidates[i].id;
      lines = 1;
    }
  }
  if (!refused_problem) return std::nullopt;
  return *reason + " (" + std::to_string(lines) + (lines == 1 ? " candidate" : " candidates") +
         " of the input " + (lines == 1 ? "is" : "are") + " for " + *refused_problem + ", the first " + *first_id + ")";
}

}  // namespace hpcreward
