#include "stages/advancement.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/number_text.hpp"
#include "common/problem_catalog.hpp"

namespace hpcreward {

ProblemProgress::ProblemProgress(const LadderConfig &config, std::string problem,
                                 std::vector<UnsupportedStage> unsupported)
    : config_(&config), problem_(std::move(problem)) {
  if (const Problem *spec = find_problem(problem_)) language_ = spec->language;
  ladder_ = &config.ladder_for(language_);
  if (ladder_->empty())
    throw std::invalid_argument("problem " + problem_ + " is a " + (language_ == Language::cuda ? "CUDA" : "C") +
                                " problem and the stage ladder has no " +
                                (language_ == Language::cuda ? "\"cuda_ladder\"" : "\"ladder\"") +
                                ": add one (see stages/default_ladder.json)");
  for (UnsupportedStage &stage : unsupported) unsupported_[stage.stage] = std::move(stage.reason);
  for (const StageSpec &stage : config.stages)
    for (const AdvanceRule &rule : stage.advance)
      if (rule.type == RuleType::success_rate)
        window_cap_ = std::max(window_cap_, static_cast<std::size_t>(rule.window));
}

void ProblemProgress::observe(const StageObservation &observation) {
  if (observation.problem != problem_ || observation.stage != current_stage()) return;
  StageStats &s = stats_;
  ++s.candidates;
  s.batches.insert(observation.batch_id);
  bool ok = observation.status == Status::ok;
  s.recent_ok.push_back(ok);
  while (s.recent_ok.size() > window_cap_) s.recent_ok.pop_front();
  if (!ok) return;
  // Only verified, timed candidates count as quality; failures carry no real GFLOPS.
  if (!s.best_gflops || observation.gflops > *s.best_gflops) {
    s.best_gflops = observation.gflops;
    s.best_batch_count = s.batches.size();
  }
  if (observation.blas_gflops && *observation.blas_gflops > 0) {
    double fraction = observation.gflops / *observation.blas_gflops;
    if (!s.best_blas_fraction || fraction > *s.best_blas_fraction) s.best_blas_fraction = fraction;
  }
  if (observation.yardstick_gflops && *observation.yardstick_gflops > 0) {
    double fraction = observation.gflops / *observation.yardstick_gflops;
    if (!s.best_yardstick_fraction || fraction > *s.best_yardstick_fraction) s.best_yardstick_fraction = fraction;
  }
}

std::optional<std::string> ProblemProgress::fired(const AdvanceRule &rule) const {
  const StageStats &s = stats_;
  switch (rule.type) {
    case RuleType::best_gflops:
      if (s.best_gflops && *s.best_gflops >= rule.threshold)
        return "best " + number_text(*s.best_gflops, 4) + " GFLOPS >= " + number_text(rule.threshold, 4);
      return std::nullopt;
    case RuleType::best_fraction_of_blas:
      if (s.best_blas_fraction && *s.best_blas_fraction >= rule.threshold)
        return "best " + number_text(*s.best_blas_fraction, 4) +
               (language_ == Language::cuda ? " of cuBLAS >= " : " of OpenBLAS >= ") + number_text(rule.threshold, 4);
      return std::nullopt;
    case RuleType::best_fraction_of_yardstick:
      if (s.best_yardstick_fraction && *s.best_yardstick_fraction >= rule.threshold)
        return "best " + number_text(*s.best_yardstick_fraction, 4) + " of the problem's yardstick >= " +
               number_text(rule.threshold, 4);
      return std::nullopt;
    case RuleType::success_rate: {
      // A full window only: three lucky candidates out of three are not a success rate.
      auto window = static_cast<std::size_t>(rule.window);
      if (s.recent_ok.size() < window) return std::nullopt;
      auto ok = std::count(s.recent_ok.end() - static_cast<std::ptrdiff_t>(window), s.recent_ok.end(), true);
      double rate = static_cast<double>(ok) / static_cast<double>(window);
      if (rate >= rule.threshold)
        return std::to_string(ok) + " of the last " + std::to_string(window) + " ok (" + number_text(rate, 4) +
               " >= " + number_text(rule.threshold, 4) + ")";
      return std::nullopt;
    }
    case RuleType::plateau: {
      // Needs a best to plateau at; a stage where nothing verifies is left to max_candidates.
      if (!s.best_gflops) return std::nullopt;
      std::size_t since = s.batches.size() - s.best_batch_count;
      if (since >= static_cast<std::size_t>(rule.window))
        return "best " + number_text(*s.best_gflops, 4) + " GFLOPS not improved over " + std::to_string(since) +
               " batches";
      return std::nullopt;
    }
    case RuleType::max_candidates:
      if (s.candidates >= static_cast<std::size_t>(rule.window))
        return std::to_string(s.candidates) + " candidates >= " + std::to_string(rule.window);
      return std::nullopt;
  }
  return std::nullopt;
}

const std::string *ProblemProgress::unsupported_reason(std::size_t index) const {
  auto it = unsupported_.find((*ladder_)[index]);
  return it == unsupported_.end() ? nullptr : &it->second;
}

std::optional<std::size_t> ProblemProgress::next_supported(std::size_t after) const {
  for (std::size_t i = after + 1; i < ladder_->size(); ++i)
    if (!unsupported_reason(i)) return i;
  return std::nullopt;
}

void ProblemProgress::enter(std::size_t index) {
  index_ = index;
  stats_ = {};
}

std::optional<StageEvent> ProblemProgress::maybe_advance(double now) {
  std::optional<std::size_t> next = next_supported(index_);
  if (!next) return std::nullopt;  // the last stage this host can run never advances
  StageEvent event{problem_, current_stage(), (*ladder_)[*next], "", "", now};
  if (const std::string *reason = unsupported_reason(index_)) {
    event.rule = "unsupported_stage";
    event.detail = *reason;
    enter(*next);
    return event;
  }
  const StageSpec &stage = *config_->find(current_stage());
  for (const AdvanceRule &rule : stage.advance) {
    if (std::optional<std::string> detail = fired(rule)) {
      // One step only: an unsupported stage next is skipped by the following call, so the
      // log says why it was skipped.
      event.to = (*ladder_)[index_ + 1];
      event.rule = std::string(to_string(rule.type));
      event.detail = *detail;
      enter(index_ + 1);
      return event;
    }
  }
  return std::nullopt;
}

ProblemProgress ProblemProgress::rebuild(const LadderConfig &config, std::string problem,
                                         std::vector<UnsupportedStage> unsupported,
                                         const ProgressHistory &history) {
  ProblemProgress progress(config, std::move(problem), std::move(unsupported));
  for (const auto &item : history) {
    if (const auto *observation = std::get_if<StageObservation>(&item)) {
      progress.observe(*observation);
    } else {
      const StageEvent &event = std::get<StageEvent>(item);
      if (event.problem != progress.problem_) continue;
      std::optional<std::size_t> index = config.ladder_index(event.to, progress.language_);
      // An event naming a stage the current ladder lacks means the config changed under
      // the log; resuming from a guess would mislabel every later candidate.
      if (!index)
        throw std::invalid_argument("stage event for " + event.problem + " moves to \"" + event.to +
                                    "\", which is not in the configured ladder");
      progress.enter(*index);
    }
  }
  return progress;
}

}  // namespace hpcreward
