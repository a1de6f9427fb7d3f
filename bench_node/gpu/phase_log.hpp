#pragma once
// The GPU rank's report of where its runs' time went (gpu_task_pipeline.hpp, phase_times.hpp):
// each phase's median, mean and 90th percentile over the latest runs that had it. A diagnostic,
// never part of a reward.
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "bench_node/measure/statistics.hpp"
#include "bench_node/process/phase_times.hpp"

namespace hpcreward {

class PhaseLog {
 public:
  // Runs kept per phase: the latest ones, so that a rank scoring for days keeps its memory.
  static constexpr std::size_t kKeptRuns = 4096;

  void add(const PhaseSeconds &phases) {
    for (const auto &[name, seconds] : phases) {
      auto [entry, added] = phases_.try_emplace(name);
      if (added) order_.push_back(name);
      Samples &samples = entry->second;
      if (samples.seconds.size() < kKeptRuns) samples.seconds.push_back(seconds);
      else samples.seconds[samples.added % kKeptRuns] = seconds;
      ++samples.added;
    }
  }
  // "phase 0.012 s, ..." in the order the phases were first seen; "" before any.
  std::string medians() const { return each([](std::span<const double> s) { return quantile(s, 0.5); }); }
  // The means of the rank's phases add up to a candidate's whole turn on the GPU, which medians
  // do not: a few long set-ups cost throughput that no median shows.
  std::string means() const {
    return each([](std::span<const double> s) { return std::accumulate(s.begin(), s.end(), 0.0) / s.size(); });
  }
  std::string p90s() const { return each([](std::span<const double> s) { return quantile(s, 0.9); }); }

 private:
  std::string each(const std::function<double(std::span<const double>)> &statistic) const {
    std::string text;
    for (const std::string &name : order_) {
      char number[32];
      std::snprintf(number, sizeof number, " %.3f s", statistic(phases_.at(name).seconds));
      text += (text.empty() ? "" : ", ") + name + number;
    }
    return text;
  }

  struct Samples {
    std::vector<double> seconds;
    std::size_t added = 0;
  };
  std::vector<std::string> order_;
  std::map<std::string, Samples> phases_;
};

}  // namespace hpcreward
