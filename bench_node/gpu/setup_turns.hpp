#pragma once
// The GPU ranks of a node take turns setting a candidate's contexts up (from 'p' to 'r',
// staged_run.hpp): the set-up is on each rank's critical path (the candidate before warms up
// until the next one is ready), and a context made while another process on the host, even on
// another GPU, made or tore one down took 0.52 s instead of 0.35 s (tests/gpu/context_probe.cu).
// Taking turns, two H200 ranks went from 1.47x one to 1.64x. The measurers' executor teardowns
// take no turn: made to wait for one, they held the next run's calibration back (1.33x,
// docs/reports/gpu-runs.md). A turn is an flock(2) on a node-wide file, released by the kernel
// if its holder dies; one not had within a few seconds is taken without (turns save time,
// they never stall a run).
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
