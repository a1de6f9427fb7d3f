#pragma once
// How long and how often the nominal shape is timed (DESIGN.md "Measuring honestly").
namespace hpcreward {

struct TimingOptions {
  double warmup_s = 0.2;     // untimed calls until this much time has passed (at least one call)
  int min_reps = 5;          // timed calls before the relative standard error may stop the loop
  int max_reps = 200;        // hard bound on timed calls
  double target_rse = 0.01;  // stop once stderr(median) / median falls below this
  double time_cap_s = 2.0;   // stop once the timing loop has run this long
};

}  // namespace hpcreward
