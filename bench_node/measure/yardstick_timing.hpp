#pragma once
// How a yardstick (common/yardsticks.hpp) is timed, on CPU ranks (blas_yardstick.hpp) and GPU
// ranks (gpu/library_yardsticks.hpp): the candidates' rules (a warm-up until calls settle, then
// timed calls until the median's standard error is small), tighter, since the yardstick divides
// every ratio reward of its problem on the rank and its noise is in all of them. 0.5% took 20 to
// 400 calls of dgemm-256 (0.04 to 0.26 s).
#include <functional>

#include "bench_node/measure/timing_options.hpp"

namespace hpcreward {

inline TimingOptions yardstick_timing() {
  TimingOptions options;
  options.target_rse = 0.005;
  options.min_reps = 20;
  options.max_reps = 400;
  options.time_cap_s = 0.5;
  return options;
}

// One yardstick's timing: its figure and the spread it rests on (logged by the rank).
struct YardstickTiming {
  double gflops = 0;  // from the median call
  int calls = 0;      // timed calls
  double iqr = 0;     // interquartile range of the calls over their median
};

// Calls of `timed_call` (each returns its own seconds) until their times settle, then to the
// stopping rule, both by yardstick_timing(); the figure of an operation of `flops` from them.
YardstickTiming time_yardstick(const std::function<double()> &timed_call, double flops);

}  // namespace hpcreward
