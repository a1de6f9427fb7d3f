#pragma once
// The GPU processes of a node take turns at what goes through the driver's locks: a candidate's
// contexts set up (the rank, from 'p' to 'r'), its executor torn down and the next executor's
// driver started (the measurer). A context made while another process on the host, even on
// another GPU, makes or tears one down took 0.52 s instead of 0.35 s (tests/gpu/context_probe.cu),
// and the set-up is on each rank's critical path (the candidate before warms up until the next
// one is set up, staged_run.hpp): two GPU ranks reached 1.47x one. Taking turns, each runs
// alone. A turn is an flock(2) on a node-wide file, released by the kernel if its holder dies;
// a turn not had within a few seconds is gone without (turns save time, they never stall a run).
#include <string>
#include <utility>

namespace hpcreward {

class SetupTurns {
 public:
  // `path`: the node-wide lock file (created if missing); empty, or a file that cannot be
  // opened: no turns (each set-up starts at once), and why() says so.
  explicit SetupTurns(const std::string &path);
  ~SetupTurns();
  SetupTurns(const SetupTurns &) = delete;
  SetupTurns &operator=(const SetupTurns &) = delete;

  // Holds the turn until it goes out of scope.
  class Turn {
   public:
    explicit Turn(int fd = -1) : fd_(fd) {}
    ~Turn();
    Turn(Turn &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Turn(const Turn &) = delete;
    Turn &operator=(const Turn &) = delete;

   private:
    int fd_;
  };
  // Waits at most `max_wait_s` for the turn; past that the turn is taken without the lock.
  Turn take(double max_wait_s = 5) const;
  bool active() const { return fd_ >= 0; }
  const std::string &why_not() const { return why_not_; }

 private:
  int fd_ = -1;
  std::string why_not_;
};

// The node-wide file the GPU processes of this user take turns on.
std::string default_setup_turns_path();

}  // namespace hpcreward
