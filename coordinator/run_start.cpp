#include "coordinator/run_start.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "common/number_text.hpp"
#include "coordinator/problem_support.hpp"

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

bool cpu_ranks_have_avx512(const std::vector<RankInfo> &ranks) {
  return std::all_of(ranks.begin(), ranks.end(),
                     [](const RankInfo &rank) { return rank.kind != kCpuRankKind || rank.avx512; });
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
