#include "bench_node/gpu/call_clock.hpp"

#include <algorithm>
#include <cmath>

namespace hpcreward::gpu {

CallOverhead call_overhead(std::vector<double> overheads_s) {
  std::sort(overheads_s.begin(), overheads_s.end());
  return {overheads_s.front(), overheads_s[overheads_s.size() * 9 / 10]};
}

double call_reading(const CallReport &report) { return report.records > 0 ? report.activity_s : report.event_s; }

double idle_gap(double first_gap_s, std::vector<double> calibration_gaps_s) {
  if (calibration_gaps_s.empty()) return first_gap_s;
  std::sort(calibration_gaps_s.begin(), calibration_gaps_s.end());
  return std::min(first_gap_s, calibration_gaps_s[calibration_gaps_s.size() * 9 / 10]);
}

double call_seconds(double event_s, double window_s, const CallOverhead &overhead) {
  const double lowest = std::max(window_s - overhead.high_s, 0.0);
  return std::max(std::isfinite(event_s) ? event_s : 0.0, lowest);
}

}  // namespace hpcreward::gpu
