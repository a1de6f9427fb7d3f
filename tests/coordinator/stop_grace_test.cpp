// A stop request's grace (stop_grace.hpp), on times the test sets by hand.
#include "coordinator/scoring/stop_grace.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

using Clock = StopGrace::Clock;

Clock::time_point at(double seconds) {
  return Clock::time_point{} + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

TEST(StopGrace, NothingHappensUntilAStopIsRequested) {
  bool requested = false;
  StopGrace grace([&] { return requested; }, 5);
  EXPECT_FALSE(grace.check(at(1), 3));
  EXPECT_FALSE(grace.stopping());
  EXPECT_FALSE(grace.deadline());
  EXPECT_FALSE(grace.over(at(100)));
  StopGrace never({}, 5);
  EXPECT_FALSE(never.check(at(1), 0));
}

TEST(StopGrace, TheFirstRequestStartsTheGraceAndSaysWhatTheRanksHold) {
  bool requested = true;
  StopGrace grace([&] { return requested; }, 5);
  EXPECT_EQ(grace.check(at(10), 2), "stopping: no new tasks; waiting up to 5 s for the 2 tasks the ranks hold");
  EXPECT_TRUE(grace.stopping());
  EXPECT_EQ(grace.deadline(), at(15));
  requested = false;
  EXPECT_FALSE(grace.check(at(11), 2)) << "said once";
  EXPECT_TRUE(grace.stopping()) << "a stop is not taken back";
  EXPECT_FALSE(grace.over(at(14.9)));
  EXPECT_TRUE(grace.over(at(15)));
}

TEST(StopGrace, WithNothingHeldOrNoGraceTheStopIsAtOnce) {
  StopGrace idle([] { return true; }, 5);
  EXPECT_EQ(idle.check(at(0), 0), "stopping: no new tasks; no task is out on a rank");
  StopGrace none([] { return true; }, -1);
  none.check(at(3), 1);
  EXPECT_TRUE(none.over(at(3)));
}

}  // namespace
}  // namespace hpcreward
