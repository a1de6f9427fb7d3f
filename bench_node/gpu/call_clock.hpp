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

// What the executor reports of one call: its CUDA events (a start event before the call, the
// end after it: on an idle device the host's launch of the first kernel falls inside) and
// CUPTI's records of its device work (activity_clock.hpp: first start to last end of every
// kernel, copy and memset, on any stream; records 0 when there were none to be had).
struct CallReport {
  double event_s = 0;
  double activity_s = 0;
  unsigned records = 0;
};

// The call's device time, whatever streams it used: the records' span, or the events where
// there are no records.
double call_reading(const CallReport &report);

// The executor's events: work past a call's end event (on other streams) counts from a second
// event after the device-wide synchronize, less the gap between such events on an idle device.
// The gap to subtract: the lesser of the first one measured (on a GPU just woken: it can be
// longer than a warm one, and the difference went to calls with such work) and the 90th
// percentile of the calibration rounds' (warm GPU, before the candidate is loaded), so that a
// call with all its work on the legacy stream still reads its end event unless its gap is
// among the slowest tenth. No rounds yet: the first gap.
double idle_gap(double first_gap_s, std::vector<double> calibration_gaps_s);

// The call's time: the events, or the window less the high overhead when that is longer (a
// report the window cannot hold). An honest call reads its events (its overhead is rarely
// above the high one); a forged report gains at most the high overhead less the call's own.
// A report longer than the window allows only costs the candidate, so it stands.
double call_seconds(double event_s, double window_s, const CallOverhead &overhead);

}  // namespace hpcreward::gpu
