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

// The call's time: the events, or the window less the high overhead when that is longer (a
// report the window cannot hold). An honest call reads its events (its overhead is rarely
// above the high one); a forged report gains at most the high overhead less the call's own.
// A report longer than the window allows only costs the candidate, so it stands.
double call_seconds(double event_s, double window_s, const CallOverhead &overhead);

}  // namespace hpcreward::gpu
