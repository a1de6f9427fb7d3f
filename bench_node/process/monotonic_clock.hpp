#pragma once
// The harness's clock: CLOCK_MONOTONIC in seconds (never the candidate's).
#include <time.h>

namespace hpcreward {

inline double monotonic_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace hpcreward
