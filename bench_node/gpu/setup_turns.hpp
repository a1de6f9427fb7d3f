#pragma once
// The GPU ranks of a node take turns setting a candidate's contexts up. Creating a CUDA context
// (the executor's, about 0.2 s on an H200) goes through the driver, and two made at once on two
// GPUs of one host slowed each other to about 0.34 s: on the critical path (the candidate
// before warms up until the next one is set up, staged_run.hpp), that held two GPU ranks to
// 1.47x one. Taking turns, each set-up runs alone, and the ranks fall into step with their
// set-ups apart. A turn is an flock(2) on a node-wide file: released by the kernel if the rank
// dies holding it.
#include <string>

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
    explicit Turn(int fd);
    ~Turn();
    Turn(const Turn &) = delete;
    Turn &operator=(const Turn &) = delete;

   private:
    int fd_;
  };
  Turn take() const { return Turn(fd_); }
  bool active() const { return fd_ >= 0; }
  const std::string &why_not() const { return why_not_; }

 private:
  int fd_ = -1;
  std::string why_not_;
};

// The node-wide file the GPU ranks of this user take turns on.
std::string default_setup_turns_path();

}  // namespace hpcreward
