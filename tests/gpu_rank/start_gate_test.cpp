// The measurer's side of a staged run without CUDA: a failure that the run before may have
// caused (its candidate's memory, held until its executor is reaped) is attempted once more
// after 'q', and nothing else is.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#include "bench_node/gpu/start_gate.hpp"

namespace hpcreward::gpu {
namespace {

struct HeldBack : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A gate between a test (the rank's end) and the code under test (the measurer's end).
class Gate {
 public:
  Gate() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds_), 0); }
  ~Gate() {
    close_rank_end();
    ::close(fds_[1]);
  }
  void send(char byte) const { ASSERT_EQ(::send(fds_[0], &byte, 1, MSG_NOSIGNAL), 1); }
  void close_rank_end() {
    if (fds_[0] >= 0) ::close(std::exchange(fds_[0], -1));
  }
  StartGate measurer_end() const { return StartGate(fds_[1]); }

 private:
  int fds_[2] = {-1, -1};
};

std::string closed() { return "closed"; }

TEST(AttemptAgainAfterQuiet, AFailureHeldBackBeforeQuietIsAttemptedOnceMoreOnlyAfterIt) {
  Gate gate;
  std::atomic<bool> quiet_sent = false;
  bool quiet = false, quiet_when_attempted = false;
  int attempts = 0;
  std::thread rank([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    quiet_sent = true;
    gate.send(kGateQuiet);
  });
  const std::string result = attempt_again_after_quiet<HeldBack>(
      gate.measurer_end(), quiet,
      [&] {
        if (++attempts == 1) throw HeldBack("out of memory");
        quiet_when_attempted = quiet_sent;
        return std::string("measured");
      },
      [](const HeldBack &) { return true; }, closed);
  rank.join();
  EXPECT_EQ(result, "measured");
  EXPECT_EQ(attempts, 2);
  EXPECT_TRUE(quiet_when_attempted) << "attempted again before the run before had ended";
  EXPECT_TRUE(quiet);
}

TEST(AttemptAgainAfterQuiet, AfterQuietAFailureIsTheCallers) {
  Gate gate;
  bool quiet = true;  // the run before has ended: nothing of it is left to blame
  int attempts = 0;
  EXPECT_THROW(attempt_again_after_quiet<HeldBack>(
                   gate.measurer_end(), quiet, [&]() -> std::string { ++attempts; throw HeldBack("out of memory"); },
                   [](const HeldBack &) { return true; }, closed),
               HeldBack);
  EXPECT_EQ(attempts, 1);
}

TEST(AttemptAgainAfterQuiet, AFailureNotHeldBackIsTheCallers) {
  Gate gate;
  gate.send(kGateQuiet);
  bool quiet = false;
  int attempts = 0;
  EXPECT_THROW(attempt_again_after_quiet<HeldBack>(
                   gate.measurer_end(), quiet, [&]() -> std::string { ++attempts; throw HeldBack("illegal address"); },
                   [](const HeldBack &) { return false; }, closed),
               HeldBack);
  EXPECT_EQ(attempts, 1);
  EXPECT_FALSE(quiet) << "'q' is left for the run's own polls";
}

TEST(AttemptAgainAfterQuiet, ASecondFailureIsTheCallers) {
  Gate gate;
  gate.send(kGateQuiet);
  bool quiet = false;
  int attempts = 0;
  EXPECT_THROW(attempt_again_after_quiet<HeldBack>(
                   gate.measurer_end(), quiet, [&]() -> std::string { ++attempts; throw HeldBack("out of memory"); },
                   [](const HeldBack &) { return true; }, closed),
               HeldBack);
  EXPECT_EQ(attempts, 2);
}

TEST(AttemptAgainAfterQuiet, AGateTheRankClosedEndsTheRun) {
  Gate gate;
  gate.close_rank_end();
  bool quiet = false;
  int attempts = 0;
  const std::string result = attempt_again_after_quiet<HeldBack>(
      gate.measurer_end(), quiet, [&]() -> std::string { ++attempts; throw HeldBack("out of memory"); },
      [](const HeldBack &) { return true; }, closed);
  EXPECT_EQ(result, "closed");
  EXPECT_EQ(attempts, 1);
}

}  // namespace
}  // namespace hpcreward::gpu
