#pragma once
// How long and how often the nominal shape is timed (docs/design.md "Measuring honestly").
namespace hpcreward {

struct TimingOptions {
  double warmup_s = 0.2;     // most warm-up: untimed, checked calls end once this much time has passed
  int min_reps = 5;          // timed calls before the relative standard error may stop the loop
  // Least seconds of timed calls before the relative standard error may stop the loop: the
  // median of a short call then spans as much of the device's clock and power state as a long
  // call's (GPU ranks time at least 0.15 s).
  double min_time_s = 0;
  int max_reps = 200;        // hard bound on timed calls
  // 2%: what the CV of repeated scorings can show on a shared node (docs/reports/cpu-harness.md,
  // "Timing precision"); 1% took up to 4x the calls and bought no measurable CV.
  double target_rse = 0.02;  // stop once stderr(median) / median falls below this
  double time_cap_s = 2.0;   // stop once the timing loop has run this long
  // The warm-up ends earlier once call times settle (WarmupRule, statistics.hpp): after at
  // least warmup_min_s, once the last warmup_calls call times lie within warmup_settle of
  // their fastest. warmup_settle 0: always warm up for warmup_s.
  double warmup_min_s = 0.02;   // lets the clock frequency and the caches come up
  int warmup_calls = 3;         // calls that must agree (also the fewest warm-up calls)
  double warmup_settle = 0.05;  // (slowest - fastest) / fastest of those calls
};

}  // namespace hpcreward
