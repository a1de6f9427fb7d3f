#pragma once
// Where a run's wall time went, phase by phase: a diagnostic for the rank's report (where a GPU
// candidate's seconds go between timed calls), never part of a reward. A serving GPU measurer
// sends its phases with each result (result_envelope.hpp); the rank's pipeline adds its own and
// reports each phase's median (gpu_task_pipeline.hpp).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward {

// (phase, seconds) in the order the phases ended.
using PhaseSeconds = std::vector<std::pair<std::string, double>>;

class PhaseTimes {
 public:
  // The clock starts now; nothing is recorded before the first mark.
  void start() { last_s_ = monotonic_seconds(); }
  // The phase `name` ended now: it lasted since the last mark (or start).
  void mark(const std::string &name) {
    const double now = monotonic_seconds();
    if (last_s_ >= 0) phases_.emplace_back(name, now - last_s_);
    last_s_ = now;
  }
  const PhaseSeconds &phases() const { return phases_; }

 private:
  double last_s_ = -1;
  PhaseSeconds phases_;
};

// Many runs' phases: each phase's median over the runs that had it.
class PhaseLog {
 public:
  void add(const PhaseSeconds &phases) {
    for (const auto &[name, seconds] : phases) {
      auto [entry, added] = seconds_.try_emplace(name);
      if (added) order_.push_back(name);
      entry->second.push_back(seconds);
    }
  }
  bool empty() const { return order_.empty(); }
  // "phase 0.012 s, ..." in the order the phases were first seen (the upper median of each).
  std::string medians() const {
    std::string text;
    for (const std::string &name : order_) {
      std::vector<double> values = seconds_.at(name);
      std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
      char number[32];
      std::snprintf(number, sizeof number, " %.3f s", values[values.size() / 2]);
      text += (text.empty() ? "" : ", ") + name + number;
    }
    return text;
  }

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::vector<double>> seconds_;
};

}  // namespace hpcreward
