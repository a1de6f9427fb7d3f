#include "common/wait_backoff.hpp"

#include <gtest/gtest.h>

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

TEST(WaitBackoff, OddSettingsStaySane) {
  WaitBackoff no_yields(-3, Micros(0), Micros(0));
  EXPECT_EQ(no_yields.next(), Micros(1)) << "never a zero sleep once the yields are spent";
  EXPECT_EQ(no_yields.next(), Micros(1));
  WaitBackoff cap_below_first(0, Micros(50), Micros(10));
  EXPECT_EQ(cap_below_first.next(), Micros(50));
  EXPECT_EQ(cap_below_first.next(), Micros(50));
}

}  // namespace
}  // namespace hpcreward
