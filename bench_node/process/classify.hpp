#pragma once
// Turns what happened to the runner child into a Measurement (docs/design.md "Statuses"). Pure:
// tested without processes.
#include <string>

#include "bench_node/process/child_process.hpp"
#include "common/messages.hpp"

namespace hpcreward {

struct RunExpectations {
  std::string token;        // the runner must echo it
  double deadline_s = 0;    // the wall-clock limit it ran under (for the reason)
  double cpu_limit_s = 0;   // RLIMIT_CPU it ran under; 0: none
  double silence_limit_s = 0;  // the watchdog's limit it ran under (for the reason); 0: none
};

Measurement classify_run(const ChildOutcome &outcome, const RunExpectations &expected);

// The verdict on a candidate's process killed by `signal` (the runner's, or the executor's
// that the runner watches): SIGSYS is the seccomp filter's `forbidden`, SIGXCPU (or SIGKILL
// past the CPU limit) a `timeout`, anything else a `runtime_error`. `hint`: appended to it.
Verdict verdict_for_signal(int signal, bool over_cpu_limit, double cpu_limit_s, const std::string &hint);

}  // namespace hpcreward
