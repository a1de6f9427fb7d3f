#pragma once
// Per-problem progression through the stage ladder: the problem's current stage,
// the statistics its advancement rules look at, and the decision to move on. Pure: the
// caller feeds scored candidates and the clock, and logs the events it gets back.
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "common/status.hpp"
#include "stages/ladder_config.hpp"

namespace hpcreward {

// One scored candidate as advancement sees it.
struct StageObservation {
  std::string problem;
  std::string stage;
  Status status = Status::ok;
  double reward = 0;
  double gflops = 0;
  std::string batch_id;
  std::optional<double> blas_gflops;  // OpenBLAS on the rank that measured it, when known
  // The problem's best yardstick on that rank (the row's own columns), when measured.
  std::optional<double> yardstick_gflops = {};
};

// An advance, as logged: rule is a RuleType name or "unsupported_stage".
struct StageEvent {
  std::string problem;
  std::string from;
  std::string to;
  std::string rule;
  std::string detail;  // what the rule saw, e.g. "best 12.3 GFLOPS >= 10"
  double time = 0;     // seconds since the Unix epoch
  bool operator==(const StageEvent &) const = default;
};

// Past log content, in log order, for rebuilding after a restart.
using ProgressHistory = std::vector<std::variant<StageObservation, StageEvent>>;

class ProblemProgress {
 public:
  // Starts at the first stage of the ladder of the problem's language ("ladder" for C
  // problems and unknown ids, "cuda_ladder" for CUDA problems). `unsupported` lists the
  // ladder stages this host cannot run (unsupported_stages()), each skipped with its reason
  // as the event detail. Keeps a pointer to `config`, which must outlive the progress (the
  // coordinator's own). Throws std::invalid_argument if that ladder is empty (a config
  // without "cuda_ladder" and a CUDA problem).
  ProblemProgress(const LadderConfig &config, std::string problem,
                  std::vector<UnsupportedStage> unsupported = {});
  ProblemProgress(LadderConfig &&, std::string, std::vector<UnsupportedStage> = {}) = delete;

  const std::string &problem() const { return problem_; }
  std::size_t current_index() const { return index_; }
  const std::string &current_stage() const { return (*ladder_)[index_]; }

  // Counts a scored candidate of this problem toward the current stage's rules; candidates
  // of other problems or scored in another stage (an explicit `stage`) do not count.
  void observe(const StageObservation &observation);

  // One transition at most. If the current stage is unsupported, skips it (rule
  // "unsupported_stage"); otherwise the first of the stage's rules that fires, in config
  // order, moves the problem one stage on. The last supported stage never advances.
  // Call it until it answers nullopt to take several steps.
  std::optional<StageEvent> maybe_advance(double now);

  // Replays the log: observations as observe(), events move the stage as they did live.
  // Rules are not evaluated during replay; call maybe_advance afterwards for any event
  // a crash kept from being logged.
  static ProblemProgress rebuild(const LadderConfig &config, std::string problem,
                                 std::vector<UnsupportedStage> unsupported,
                                 const ProgressHistory &history);

  // The statistics of the current stage (reset on every advance).
  struct StageStats {
    std::size_t candidates = 0;
    std::optional<double> best_gflops;
    std::optional<double> best_blas_fraction;
    std::optional<double> best_yardstick_fraction;
    std::deque<bool> recent_ok;          // last candidates, newest at the back, capped
    std::set<std::string> batches;       // distinct batch ids seen in the stage
    std::size_t best_batch_count = 0;    // batches.size() when best_gflops last improved
    bool operator==(const StageStats &) const = default;
  };
  const StageStats &stats() const { return stats_; }

  bool operator==(const ProblemProgress &other) const {
    return problem_ == other.problem_ && index_ == other.index_ && stats_ == other.stats_;
  }

 private:
  const std::string *unsupported_reason(std::size_t index) const;
  std::optional<std::size_t> next_supported(std::size_t after) const;
  std::optional<std::string> fired(const AdvanceRule &rule) const;  // detail when it fires
  void enter(std::size_t index);

  const LadderConfig *config_;
  std::string problem_;
  Language language_ = Language::c;
  const std::vector<std::string> *ladder_;  // the config's ladder of language_
  std::map<std::string, std::string> unsupported_;  // stage -> reason
  std::size_t index_ = 0;
  std::size_t window_cap_ = 0;  // largest success_rate window of any stage
  StageStats stats_;
};

}  // namespace hpcreward
