#pragma once
// Turns what happened to the runner child into a Measurement (DESIGN.md "Statuses"). Pure:
// tested without processes.
#include <string>

#include "bench_node/child_process.hpp"
#include "common/messages.hpp"

namespace hpcreward {

struct RunExpectations {
  std::string token;        // the runner must echo it
  double deadline_s = 0;    // the wall-clock limit it ran under (for the reason)
  double cpu_limit_s = 0;   // RLIMIT_CPU it ran under; 0: none
  double silence_limit_s = 0;  // the watchdog's limit it ran under (for the reason); 0: none
};

Measurement classify_run(const ChildOutcome &outcome, const RunExpectations &expected);

}  // namespace hpcreward
