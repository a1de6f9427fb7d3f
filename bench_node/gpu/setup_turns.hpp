#pragma once
// The GPU ranks of a node take turns setting a candidate's contexts up (from 'p' to 'r',
// staged_run.hpp): the set-up is on each rank's critical path (the candidate before warms up
// until the next one is ready), and a context made while another process on the host, even on
// another GPU, made or tore one down took 0.52 s instead of 0.35 s (tests/gpu/context_probe.cu).
// Taking turns, two H200 ranks went from 1.47x one to 1.64x. The measurers' executor teardowns
// take no turn: made to wait for one, they held the next run's calibration back (1.33x,
// docs/reports/gpu-runs.md). One not had within a few seconds is taken without (turns save
// time, they never stall a run).
//
// A turn is a name in Linux's abstract socket namespace, bound by its holder: no file, and the
// kernel frees it when the holder closes it or dies. No candidate can hold it: both executors'
// seccomp filters refuse socket(2), where a lock file could be opened and locked by any process
// of the user. Abstract names have no owner, so another user's process could bind it first: a
// holder listens, and a waiter that finds the name taken asks the listener's user
// (SO_PEERCRED); a holder of another user's, or one that never listens, means no turns.
// Names are per network namespace: ranks in different ones take no turns from each other.
//
// One turn for the node serializes every rank's set-up, so with more ranks the turns become the
// bound: on four H200s (a set-up of 0.33 s each in turn) the node scored 2.99 candidates a
// second with turns and 3.42 without, where on two turns still won (1.71x one rank against 1.60x).
#include <string>
#include <utility>

namespace hpcreward {

class SetupTurns {
 public:
  // `name`: the node-wide abstract socket name; empty: no turns (each set-up starts at once).
  // `who` starts the line that says, once, that the turn is held by a stranger ("[gpu 3] ").
  explicit SetupTurns(std::string name, std::string who = "");
  SetupTurns(const SetupTurns &) = delete;
  SetupTurns &operator=(const SetupTurns &) = delete;

  enum class Outcome {
    held,            // the turn is this one's until it goes out of scope
    waited_out,      // another rank of this user held it past the wait: taken without it
    foreign_holder,  // held by another user's process, or by one that never listens
    off,             // no turns
    failed,          // the socket could not be made: taken without it
  };
  // Holds the turn until it goes out of scope (when its outcome is `held`).
  class Turn {
   public:
    explicit Turn(Outcome outcome, int fd = -1) : outcome_(outcome), fd_(fd) {}
    ~Turn();
    Turn(Turn &&other) noexcept : outcome_(other.outcome_), fd_(std::exchange(other.fd_, -1)) {}
    Turn(const Turn &) = delete;
    Turn &operator=(const Turn &) = delete;
    Outcome outcome() const { return outcome_; }

   private:
    Outcome outcome_;
    int fd_;
  };
  // Waits at most `max_wait_s` for the turn while a rank of this user holds it.
  Turn take(double max_wait_s = 5) const;
  bool active() const { return !name_.empty(); }

 private:
  std::string name_;
  std::string who_;
  mutable bool told_of_stranger_ = false;  // take() runs on the rank's GPU thread only
};

// The node-wide name this user's GPU ranks take turns on.
std::string default_setup_turns_name();

// Measured as above: more GPU ranks on a node than this take no turns under "auto".
inline constexpr int kMostGpuRanksTakingTurns = 2;

// Whether a GPU rank takes turns, from --gpu-setup-turns ("1", "0" or "auto") and the number of
// GPU ranks on its node.
bool setup_turns_wanted(const std::string &setting, int gpu_ranks_on_node);

}  // namespace hpcreward
