#pragma once
// Summary statistics of timed calls, and the rules that decide when to stop warming up and
// when to stop timing.
// Pure functions: no clocks, no candidates.
#include <span>

#include "bench_node/measure/timing_options.hpp"

namespace hpcreward {

struct SampleSummary {
  int count = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double q1 = 0;  // first and third quartiles (linear interpolation between order statistics)
  double q3 = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 for fewer than two samples
  double iqr() const { return q3 - q1; }
  double cv() const { return mean > 0 ? stddev / mean : 0; }
  // Relative standard error of the mean; infinite for fewer than two samples.
  double rse() const;
  // Relative standard error of the median, from the IQR (robust to the outliers timings
  // have): SE(median) ~ 1.2533 sigma / sqrt(n) with sigma ~ IQR / 1.349. Infinite for
  // fewer than two samples.
  double median_rse() const;
};

// The p-quantile (0 <= p <= 1) of `samples`, which need not be sorted. NaN when empty.
double quantile(std::span<const double> samples, double p);
SampleSummary summarize(std::span<const double> samples);

// Stops once reps >= min_reps, min_time_s has passed and the median's RSE is below target, or
// at the time cap, or at max_reps. The reward is the median, so its precision decides.
class StoppingRule {
 public:
  explicit StoppingRule(const TimingOptions &options) : options_(options) {}
  // `samples`: the timed calls so far; `elapsed_s`: wall time of the timing loop so far;
  // `min_reps`: timed calls the caller needs beyond the options' own before the standard error
  // may stop the loop (the residual check's pooled evidence, residual_bound.hpp); max_reps and
  // the time cap still bind.
  bool done(std::span<const double> samples, double elapsed_s, int min_reps = 0) const;

 private:
  TimingOptions options_;
};

// Ends the warm-up once call times settle (TimingOptions): at warmup_s whatever the calls do;
// before that, once warmup_min_s has passed and the last warmup_calls call times lie within
// warmup_settle of their fastest. The warm-up's times never enter the reward: a candidate
// that runs slow while warming up only meets the cap, one that runs fast and then slows is
// timed slow.
class WarmupRule {
 public:
  explicit WarmupRule(const TimingOptions &options) : options_(options) {}
  // `call_s`: the warm-up calls so far; `elapsed_s`: wall time of the warm-up so far.
  bool done(std::span<const double> call_s, double elapsed_s) const;

 private:
  TimingOptions options_;
};

}  // namespace hpcreward
