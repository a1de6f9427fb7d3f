#include "bench_node/process/progress_marks.hpp"

#include <unistd.h>

#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward {

void ProgressMarks::mark() {
  if (fd_ < 0) return;
  const double now = monotonic_seconds();
  if (last_mark_s_ >= 0 && now - last_mark_s_ < kMarkIntervalS) return;
  last_mark_s_ = now;
  const char byte = 'c';
  if (::write(fd_, &byte, 1) == 1) ++written_;
}

}  // namespace hpcreward
