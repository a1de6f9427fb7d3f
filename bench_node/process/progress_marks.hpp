#pragma once
// The runner's side of the rank's watchdog (child_process.hpp, "progress pipe"): before each
// call into the candidate the harness marks progress, and a runner that goes silent for the
// rank's silence limit (run_time_limit.hpp) is killed as a timeout. So a call that never
// returns costs that limit, not the whole run's wall-clock limit.
//
// At most one byte per kMarkIntervalS: a fast kernel's thousand calls a second must not wake
// the rank (which shares the candidate's cores) a thousand times a second. The byte goes out
// before the clock starts, never inside a timed call. Candidate code can write to the pipe
// too: that only keeps the watchdog quiet, and the run's wall-clock limit still ends it.
namespace hpcreward {

class ProgressMarks {
 public:
  static constexpr double kMarkIntervalS = 0.1;

  // `fd`: the progress pipe's write end (set non-blocking by the caller); -1: marks nothing.
  explicit ProgressMarks(int fd) : fd_(fd) {}

  // Before a call into the candidate. Errors (a full or closed pipe) are ignored: the rank
  // then hears nothing, and silence ends the run as a timeout.
  void mark();
  // Bytes written so far (for tests).
  long written() const { return written_; }

 private:
  int fd_;
  double last_mark_s_ = -1;  // monotonic seconds of the last byte; < 0: none yet
  long written_ = 0;
};

}  // namespace hpcreward
