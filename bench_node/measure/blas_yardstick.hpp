#pragma once
// A CPU rank's yardstick for a problem (common/yardsticks.hpp): OpenBLAS at the problem's own
// shape, layout and batch, with the rank's threads, timed as the harness times a candidate
// (buffer sets in rotation, a warm-up until calls settle, the median of timed calls to a
// stopping rule, here a tighter one), on the rank that scores the
// candidate and again whenever its last figure is older than the refresh interval, so a ratio
// reward compares the candidate with a figure measured under the same conditions close in time.
#include <functional>
#include <map>
#include <string>

#include "common/problem.hpp"
#include "bench_node/measure/yardstick_timing.hpp"
#include "common/yardsticks.hpp"

namespace hpcreward {

// OpenBLAS's dgemm/sgemm (one call per product of a batch, transposes by its own flags) at
// `problem`'s nominal shape, with `threads` threads. C problems only (f64, f32); zeros otherwise.
YardstickTiming openblas_timing(const Problem &problem, int threads);

// The rank's yardsticks by problem, each measured the first time a task names the problem and
// again before a task once its figure is `refresh_s` old (between tasks: no candidate runs beside it).
class CpuYardsticks {
 public:
  static constexpr double kRefreshS = 20;  // a dgemm-256 figure takes 0.04 to 0.26 s: at most 1.3% of a rank's time
  using Clock = std::function<double()>;
  using Measure = std::function<YardstickTiming(const Problem &, int threads)>;
  // `log_prefix` starts the line each measurement prints ("[bench 3] ").
  CpuYardsticks(int threads, std::string log_prefix, double refresh_s = kRefreshS, Clock clock = {},
                Measure measure = openblas_timing);
  Yardsticks of(const Problem &problem);

 private:
  struct Figure {
    Yardsticks yardsticks;
    double measured_at = 0;
  };
  int threads_;
  std::string log_prefix_;
  double refresh_s_;
  Clock clock_;
  Measure measure_;
  std::map<std::string, Figure> measured_;  // by problem id (one catalog per run)
};

}  // namespace hpcreward
