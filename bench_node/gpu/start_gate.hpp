#pragma once
// The GPU measurer's side of a staged run (staged_run.hpp): single bytes through the gate
// (child_process.hpp, fd 7) between the rank and a measurer it started ahead of its turn.
//
//   rank -> measurer  'p'  prepare: start the executor, create the contexts and cuBLAS, load
//                          the GPU code the checks use; no other GPU work
//   measurer -> rank  'r'  ready: it waits for 'g' without touching the GPU
//   rank -> measurer  'g'  go: the GPU is this candidate's (canary, references, warm-up); the run before
//                          it may still be ending
//   rank -> measurer  'q'  quiet: the run before has ended, its executor and context are gone:
//                          the measurer calibrates now
//   measurer -> rank  'c'  calibrated: the next candidate's measurer may prepare now
//   rank -> measurer  't'  time: no one else prepares: once the warm-up is done, the timed
//                          calls may start
//   measurer -> rank  'e'  ended (a serving measurer, whose gate stays open): its result went
//                          out and its executor is gone, also for a run that ends before 'c'
//
// The measurer polls for 'q' and 't' between calls that keep the GPU busy (poll), so
// waiting for them does not let the GPU's clocks drop.
//
// A measurer started without a gate runs straight through. A closed gate (the rank gave up
// on it) ends the wait with false. A serving measurer (`--serve`) takes each run's task as a
// frame through the gate ('T', then process/frames.hpp's frame) before that run's bytes.
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>

namespace hpcreward::gpu {

inline constexpr char kGatePrepare = 'p', kGateReady = 'r', kGateGo = 'g', kGateQuiet = 'q', kGateCalibrated = 'c',
                      kGateTime = 't', kGateEnded = 'e';

// Why a run ends when the rank closed its gate before the run was done.
inline constexpr const char *kGateClosedReason = "the rank stopped waiting for this run (it is stopping)";

// What a poll of the gate found.
enum class GateWord {
  arrived,  // the byte came (now or at an earlier poll that returned arrived)
  not_yet,
  closed,   // the rank gave up on the run
};

class StartGate {
 public:
  explicit StartGate(int fd) : fd_(fd) {}  // -1: no gate
  bool gated() const { return fd_ >= 0; }

  // Blocks until the rank sends `byte`; true at once without a gate; false when it closed the gate.
  bool await(char byte) const {
    if (fd_ < 0) return true;
    for (;;) {
      char got = 0;
      const ssize_t read = ::recv(fd_, &got, 1, 0);
      if (read == 1 && got == byte) return true;
      if (read == 0 || (read < 0 && errno != EINTR)) return false;
    }
  }
  // Without blocking: whether the rank has sent `byte` (bytes before it are skipped). Once it
  // returned arrived, the byte is taken: do not await it again. Without a gate: arrived.
  GateWord poll(char byte) const {
    if (fd_ < 0) return GateWord::arrived;
    for (;;) {
      char got = 0;
      const ssize_t read = ::recv(fd_, &got, 1, MSG_DONTWAIT);
      if (read == 1) {
        if (got == byte) return GateWord::arrived;
        continue;
      }
      if (read == 0) return GateWord::closed;
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK ? GateWord::not_yet : GateWord::closed;
    }
  }
  void say(char byte) const {
    if (fd_ >= 0) ::send(fd_, &byte, 1, MSG_NOSIGNAL);
  }

  // A serving measurer's next task (up to `limit` bytes); nullopt when the rank closed the
  // gate (it has no more work for this measurer) or broke the framing. Bytes before the task
  // were meant for the run before it, which ended first (a wrong answer in verification ends a
  // run before its 't' comes).
  std::optional<std::string> await_task(std::size_t limit = 1 << 20) const {
    char kind = 0;
    std::uint32_t length = 0;
    do {
      if (!receive(&kind, 1)) return std::nullopt;
    } while (kind != 'T');
    if (!receive(&length, sizeof length) || length > limit) return std::nullopt;
    std::string payload(length, '\0');
    if (!receive(payload.data(), length)) return std::nullopt;
    return payload;
  }

 private:
  bool receive(void *into, std::size_t bytes) const {
    auto *at = static_cast<char *>(into);
    while (bytes > 0) {
      const ssize_t got = ::recv(fd_, at, bytes, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      at += got;
      bytes -= static_cast<std::size_t>(got);
    }
    return true;
  }

  int fd_;
};

// A staged run's steps from 'g' on, through `attempt`. Until 'q' the run before may still be
// ending and hold what the GPU has (its candidate's memory is freed only once its executor is
// reaped): an `Error` that `held_back` says came from that is not this run's, whose candidate is
// loaded only after its calibration, after 'q'. Once, then, this waits for 'q' and attempts
// again; anything else, a second failure, or one after 'q', is the caller's. `held_back` is
// asked only when the attempt would go again, so it may prepare for it (clear an error, mark a
// phase). `quiet` says whether 'q' has come (the caller's polls set it too); `closed` answers a
// gate the rank closed.
template <typename Error, typename Attempt, typename HeldBack, typename Closed>
auto attempt_again_after_quiet(const StartGate &gate, bool &quiet, Attempt attempt, HeldBack held_back,
                               Closed closed) -> decltype(attempt()) {
  for (bool once_more = true;; once_more = false) {
    try {
      return attempt();
    } catch (const Error &error) {
      if (!once_more || quiet || !held_back(error)) throw;
    }
    if (!gate.await(kGateQuiet)) return closed();
    quiet = true;
  }
}

}  // namespace hpcreward::gpu
