// A GPU call's time from the measurer's window and the executor's events (call_clock.hpp):
// honest events are read as they are; whatever the executor reports, the time is at least
// the window less the high calibrated overhead.
#include "bench_node/gpu/call_clock.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace hpcreward::gpu {
namespace {

// Overheads as calibrated on an H200 without MPS: about 290 us, spread 40 us.
CallOverhead h200() {
  std::vector<double> rounds;
  for (int i = 0; i < 32; ++i) rounds.push_back(290e-6 + 40e-6 * i / 31.0);
  return call_overhead(rounds);
}

TEST(CallClock, TheOverheadIsTheLeastAndTheNinetiethPercentile) {
  const CallOverhead overhead = call_overhead({5e-6, 1e-6, 9e-6, 2e-6, 3e-6, 4e-6, 6e-6, 7e-6, 8e-6, 100e-6});
  EXPECT_DOUBLE_EQ(overhead.least_s, 1e-6);
  EXPECT_DOUBLE_EQ(overhead.high_s, 100e-6) << "the 90th percentile of ten is the tenth";
  const CallOverhead one = call_overhead({7e-6});
  EXPECT_DOUBLE_EQ(one.least_s, 7e-6);
  EXPECT_DOUBLE_EQ(one.high_s, 7e-6);
}

TEST(CallClock, HonestEventsAreReadAsTheyAre) {
  const CallOverhead overhead = h200();
  EXPECT_DOUBLE_EQ(call_seconds(17e-6, 17e-6 + 300e-6, overhead), 17e-6);    // a short HGEMM
  EXPECT_DOUBLE_EQ(call_seconds(2.4e-3, 2.4e-3 + 310e-6, overhead), 2.4e-3);  // a long DGEMM
}

TEST(CallClock, AForgedReportGainsAtMostTheHighOverheadLessTheCallsOwn) {
  const CallOverhead overhead = h200();
  const double true_call = 300e-6, window = true_call + 300e-6;
  for (double forged : {0.0, 1e-9, -1.0, std::numeric_limits<double>::quiet_NaN(),
                        -std::numeric_limits<double>::infinity()}) {
    const double read = call_seconds(forged, window, overhead);
    EXPECT_GE(read, true_call - (overhead.high_s - 300e-6)) << forged;
    EXPECT_GE(read, window - overhead.high_s) << forged;
  }
}

TEST(CallClock, AReportLongerThanTheWindowAllowsStands) {
  // Only the candidate loses by it; cutting it to the window less the least overhead would cut
  // honest calls whose overhead, with the GPU's clocks up, falls below the idle calibration's.
  const CallOverhead overhead = h200();
  EXPECT_DOUBLE_EQ(call_seconds(1.0, 1e-3, overhead), 1.0);
  EXPECT_DOUBLE_EQ(call_seconds(std::numeric_limits<double>::infinity(), 1e-3, overhead), 1e-3 - overhead.high_s)
      << "not finite reads as 0, then the window's bound";
}

TEST(CallClock, AWindowShorterThanTheOverheadReadsNoLessThanZero) {
  const CallOverhead overhead = h200();
  EXPECT_DOUBLE_EQ(call_seconds(-5, 100e-6, overhead), 0);
  EXPECT_DOUBLE_EQ(call_seconds(5e-6, 100e-6, overhead), 5e-6);
}

// A call reads as its records' span (every kernel, copy and memset on any stream), whatever
// streams it used; without records the events stand.
TEST(CallClock, ACallReadsAsItsRecordsElseItsEvents) {
  EXPECT_DOUBLE_EQ(call_reading({90e-6, 60e-6, 3}), 60e-6) << "records, e.g. on a side stream";
  EXPECT_DOUBLE_EQ(call_reading({90e-6, 0, 0}), 90e-6) << "no records: the events";
}

// Work past the end event counts less the idle gap: the first gap until calibration rounds
// measure it warm, then the lesser of the first and their 90th percentile.
TEST(CallClock, TheIdleGapIsTheLesserOfTheFirstAndTheWarmNinetiethPercentile) {
  EXPECT_DOUBLE_EQ(idle_gap(12e-6, {}), 12e-6);
  std::vector<double> warm;
  for (int i = 0; i < 10; ++i) warm.push_back((5 + i) * 1e-6);  // 5 .. 14 us
  EXPECT_DOUBLE_EQ(idle_gap(30e-6, warm), 14e-6) << "the tenth of ten: the slowest warm gap";
  warm.push_back(100e-6);  // one slow round among eleven
  EXPECT_DOUBLE_EQ(idle_gap(30e-6, warm), 14e-6) << "the 90th percentile, not the slowest";
  EXPECT_DOUBLE_EQ(idle_gap(8e-6, warm), 8e-6) << "never more than the first";
}

}  // namespace
}  // namespace hpcreward::gpu
