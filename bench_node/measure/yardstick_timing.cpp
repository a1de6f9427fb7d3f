#include "bench_node/measure/yardstick_timing.hpp"

#include <vector>

#include "bench_node/measure/statistics.hpp"
#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward {

YardstickTiming time_yardstick(const std::function<double()> &timed_call, double flops) {
  const TimingOptions options = yardstick_timing();
  std::vector<double> warmup;
  const double warmup_start = monotonic_seconds();
  do warmup.push_back(timed_call());
  while (!WarmupRule(options).done(warmup, monotonic_seconds() - warmup_start));
  std::vector<double> samples;
  const StoppingRule stop(options);
  const double start = monotonic_seconds();
  do samples.push_back(timed_call());
  while (!stop.done(samples, monotonic_seconds() - start));
  const SampleSummary summary = summarize(samples);
  YardstickTiming timing;
  timing.calls = summary.count;
  if (summary.median > 0) {
    timing.gflops = flops / summary.median / 1e9;
    timing.iqr = summary.iqr() / summary.median;
  }
  return timing;
}

}  // namespace hpcreward
