#include "coordinator/run/run_start.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "common/number_text.hpp"

namespace hpcreward {

std::filesystem::path checked_log_path(const CoordinatorOptions &options) {
  const std::filesystem::path log_path = options.out / "rewards.h5";
  const bool log_exists = std::filesystem::exists(log_path);
  if (options.resume && !log_exists)
    throw std::invalid_argument("--resume: " + log_path.string() + " does not exist; start without --resume");
  if (!options.resume && log_exists)
    throw std::invalid_argument(log_path.string() +
                                " already exists: add --resume to go on with it, or choose a new --out");
  return log_path;
}

CandidateDefaults candidate_defaults(const CoordinatorOptions &options) {
  CandidateDefaults defaults;
  defaults.problem = options.problem;
  defaults.stage = options.stage;
  defaults.batch_id = options.batch_id;
  defaults.max_source_bytes = options.max_source_bytes;
  for (const StageSpec &stage : options.ladder.stages) defaults.known_stages.push_back({stage.name, stage.language});
  return defaults;
}

std::size_t check_ranks(const std::vector<RankInfo> &ranks, const RewardTable &rewards) {
  for (const RankInfo &info : ranks)
    if (std::optional<std::string> error = rank_info_error(info)) throw std::runtime_error(*error);
  const auto nulls = static_cast<std::size_t>(
      std::count_if(ranks.begin(), ranks.end(), [](const RankInfo &rank) { return rank.null_measurement; }));
  // Null ranks answer runtime_error: a reward table that pays for it would reward nothing.
  if (nulls > 0 && rewards.penalty(Status::runtime_error) >= 0)
    throw std::invalid_argument(
        "benchmark ranks run --null-measurement (rows of status runtime_error) but the reward of runtime_error is " +
        number_text(rewards.penalty(Status::runtime_error)) +
        ": give it a negative reward (--reward.runtime_error), or start the ranks without --null-measurement");
  return nulls;
}

RankSupport rank_support(const std::vector<RankInfo> &ranks) {
  RankSupport support(std::all_of(ranks.begin(), ranks.end(),
                                  [](const RankInfo &rank) { return rank.kind != kCpuRankKind || rank.avx512; }));
  for (const RankInfo &rank : ranks)
    if (rank.kind == kGpuRankKind && rank.cute.empty()) {
      support.gpu_without_cute = "GPU rank " + std::to_string(rank.rank) + " (" + rank.host + ")";
      break;
    }
  for (const RankInfo &rank : ranks)
    if (rank.kind == kGpuRankKind && rank.gpu.arch != "sm_90a") {
      support.gpu_without_hopper = "GPU rank " + std::to_string(rank.rank) + " (" + rank.host + ", " +
                                   (rank.gpu.arch.empty() ? std::string("no GPU architecture reported") : rank.gpu.arch) +
                                   ")";
      break;
    }
  return support;
}

StartedRanks start_ranks(BenchWorld &world, const CoordinatorOptions &options) {
  StartedRanks started;
  started.ranks = world.gather_hellos(std::chrono::seconds(options.rank_start_timeout_s));
  started.null_ranks = check_ranks(started.ranks, options.rewards);
  started.support = rank_support(started.ranks);
  started.capabilities = run_capabilities(started.ranks, &options.ladder, options.ladder_source);
  return started;
}

void refuse_unscorable(const CoordinatorOptions &options, const std::vector<PreparedCandidate> &candidates,
                       const std::vector<RewardRow> &logged_rows, const RunCapabilities &capabilities) {
  const std::optional<std::string> refusal =
      options.serve ? default_problem_refusal(options.problem, capabilities)
                    : candidates_refusal(candidates, match_logged(candidates, logged_rows), capabilities);
  if (refusal) throw std::invalid_argument(*refusal);
}

std::vector<std::string> host_support_notes(const SqdState &state) {
  std::vector<std::string> notes;
  for (const UnsupportedStage &stage : state.unsupported()) {
    if (stage.language == Language::cuda) {
      notes.push_back("note: " + stage.reason + "; CUDA problems skip it (their ladder ends before it)");
      continue;
    }
    if (state.config().avx512_unsupported == UnsupportedPolicy::refuse)
      throw std::runtime_error(stage.reason + "; the ladder says \"avx512_unsupported\": \"refuse\". "
                               "Run on ranks with AVX-512, or set it to \"skip\"");
    notes.push_back("note: " + stage.reason + "; problems skip it (avx512_unsupported: skip)");
  }
  return notes;
}

ScoringContext scoring_context(const CoordinatorOptions &options, const std::vector<RankInfo> &ranks,
                               std::string host) {
  ScoringContext context;
  for (const RankInfo &info : ranks) {
    context.ranks.push_back(info.rank);
    context.rank_info[info.rank] = info;
  }
  context.host = std::move(host);
  context.seed = options.seed;
  context.rank_deadline_margin_s = options.rank_deadline_margin_s;
  context.stop_grace_s = options.stop_grace_s;
  context.repeat_cache_entries = options.repeat_cache_entries;
  return context;
}

}  // namespace hpcreward
