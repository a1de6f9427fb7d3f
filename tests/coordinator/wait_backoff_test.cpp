#include "common/wait_backoff.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace hpcreward {
namespace {

using Micros = std::chrono::microseconds;

TEST(WaitBackoff, YieldsFirstThenDoublesUpToTheCap) {
  WaitBackoff backoff(2, Micros(20), Micros(100));
  EXPECT_EQ(backoff.next(), Micros(0));
  EXPECT_EQ(backoff.next(), Micros(0));
  EXPECT_EQ(backoff.next(), Micros(20));
  EXPECT_EQ(backoff.next(), Micros(40));
  EXPECT_EQ(backoff.next(), Micros(80));
  EXPECT_EQ(backoff.next(), Micros(100));
  EXPECT_EQ(backoff.next(), Micros(100)) << "a long wait settles at the cap";
}

TEST(WaitBackoff, PastThePromptCapASleepIsAHundredthOfTheWaitSoFar) {
  WaitBackoff backoff(0, Micros(250), Micros(1000), Micros(10000));
  EXPECT_EQ(backoff.next(), Micros(250));
  EXPECT_EQ(backoff.next(), Micros(500));
  Micros slept = Micros(750);
  // Doubling stops at the prompt cap: a message that comes in the first 100 ms of a wait
  // waits at most 1 ms.
  for (; slept < Micros(100'000); slept += Micros(1000)) ASSERT_EQ(backoff.next(), Micros(1000)) << slept.count();
  // Then the sleeps grow with the wait (at most 1% more), up to the hard cap.
  Micros sleep{0};
  for (; slept < Micros(500'000); slept += sleep) {
    sleep = backoff.next();
    ASSERT_EQ(sleep, std::clamp(slept / 100, Micros(1000), Micros(10000))) << slept.count();
  }
  EXPECT_GE(sleep, Micros(4900));
  for (int look = 0; look < 1000; ++look) sleep = backoff.next();
  EXPECT_EQ(sleep, Micros(10000)) << "a long idle wait settles at the hard cap";
}

TEST(WaitBackoff, ResumingALongWaitKeepsItsLongSleeps) {
  WaitBackoff fresh(8, Micros(20), Micros(1000), Micros(10000));
  fresh.resume(Micros(0));
  EXPECT_EQ(fresh.next(), Micros(0)) << "nothing waited: the yields come first";

  WaitBackoff short_wait(8, Micros(20), Micros(1000), Micros(10000));
  short_wait.resume(Micros(300));
  EXPECT_EQ(short_wait.next(), Micros(300)) << "no yields, and sleeps as long as the wait so far";

  WaitBackoff prompt(8, Micros(20), Micros(1000), Micros(10000));
  prompt.resume(Micros(50'000));
  EXPECT_EQ(prompt.next(), Micros(1000)) << "within the first 100 ms: the prompt cap";

  WaitBackoff seconds(8, Micros(20), Micros(1000), Micros(10000));
  seconds.resume(Micros(500'000));
  EXPECT_EQ(seconds.next(), Micros(5000)) << "a hundredth of the wait so far";
  seconds.resume(Micros(5'000'000));
  EXPECT_EQ(seconds.next(), Micros(10000)) << "never above the hard cap";
}

TEST(WaitBackoff, OddSettingsStaySane) {
  WaitBackoff no_yields(-3, Micros(0), Micros(0));
  EXPECT_EQ(no_yields.next(), Micros(1)) << "never a zero sleep once the yields are spent";
  EXPECT_EQ(no_yields.next(), Micros(1));
  WaitBackoff cap_below_first(0, Micros(50), Micros(10));
  EXPECT_EQ(cap_below_first.next(), Micros(50));
  EXPECT_EQ(cap_below_first.next(), Micros(50));
  WaitBackoff caps_reversed(0, Micros(10), Micros(100), Micros(20));
  EXPECT_EQ(caps_reversed.next(), Micros(10));
  EXPECT_EQ(caps_reversed.next(), Micros(20));
  EXPECT_EQ(caps_reversed.next(), Micros(40));
  for (int look = 0; look < 10; ++look) caps_reversed.next();
  EXPECT_EQ(caps_reversed.next(), Micros(100)) << "a hard cap below the prompt cap is raised to it";
}

}  // namespace
}  // namespace hpcreward
