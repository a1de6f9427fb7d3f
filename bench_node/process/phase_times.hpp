#pragma once
// Where a run's wall time went, phase by phase: a diagnostic for the rank's report (where a GPU
// candidate's seconds go between timed calls), never part of a reward. A serving GPU measurer
// sends its phases with each result (result_envelope.hpp); the rank's pipeline adds its own and
// reports each phase's median (gpu/phase_log.hpp).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward {

// (phase, seconds) in the order the phases first ended.
using PhaseSeconds = std::vector<std::pair<std::string, double>>;

class PhaseTimes {
 public:
  // The clock starts now; nothing is recorded before the first mark.
  void start() { last_s_ = monotonic_seconds(); }
  // The phase `name` ended now: it lasted since the last mark (or start). A phase that recurs
  // (one per call of a loop) adds up.
  void mark(const std::string &name) {
    const double now = monotonic_seconds();
    if (last_s_ >= 0) {
      auto same = std::find_if(phases_.begin(), phases_.end(), [&](const auto &phase) { return phase.first == name; });
      if (same == phases_.end()) phases_.emplace_back(name, now - last_s_);
      else same->second += now - last_s_;
    }
    last_s_ = now;
  }
  const PhaseSeconds &phases() const { return phases_; }

 private:
  double last_s_ = -1;
  PhaseSeconds phases_;
};

}  // namespace hpcreward
