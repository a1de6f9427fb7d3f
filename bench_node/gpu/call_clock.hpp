#pragma once
// A GPU call's time from its two clocks (gpu_executor.hpp): the measurer's window around the
// call (trusted, but holding the switches of the GPU between two contexts) and the CUDA events
// the executor recorded around it (precise, but the candidate's process reports them).
#include <vector>

namespace hpcreward::gpu {

// The overhead (window less events) of calls that do nothing, measured before the candidate
// is loaded: its least and a high one (the 90th percentile of the rounds).
struct CallOverhead {
  double least_s = 0;
  double high_s = 0;
};

// From the calibration rounds' overheads (at least one).
CallOverhead call_overhead(std::vector<double> overheads_s);

// The call's time: the events, clamped to [window - high, window - least] (never below 0). An
// honest call's events fall inside; a forged report gains at most high - least.
double call_seconds(double event_s, double window_s, const CallOverhead &overhead);

}  // namespace hpcreward::gpu
