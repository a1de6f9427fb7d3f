#pragma once
// The device's own timestamps of the work a call caused, in the GPU executor (CUPTI activity
// records: every kernel, copy and memset of the process, on any stream). A call's span is the
// earliest start to the latest end among them: the host's launch of the first kernel falls
// outside it (a call on an idle device no longer pays it), and work on any stream counts the
// same, whether the call waits for it or not. Untrusted once the candidate is loaded, like
// the events: the measurer bounds it with its own clock (call_clock.hpp). Off in ranks
// (gpu_executor.hpp GpuExecutorOptions::activity_clock says why); benchmarks turn it on.
#include <cstddef>
#include <string>

namespace hpcreward::gpu {

class ActivityClock {
 public:
  // Registers the buffers and enables the record kinds; false (and why) when CUPTI cannot.
  bool start(std::string &error);
  // Drops what was recorded so far (the executor's own work before a call). The device must be idle.
  void begin();
  // After a device-wide synchronize: the span of the records since begin(), in seconds; false
  // when there were none or some were dropped (then the caller keeps its events).
  bool span(double &seconds, std::size_t &records);
};

}  // namespace hpcreward::gpu
