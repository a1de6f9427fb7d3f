#include "bench_node/gpu/phase_log.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

TEST(PhaseLog, EachPhasesMedianInTheOrderFirstSeen) {
  PhaseLog log;
  EXPECT_EQ(log.medians(), "");
  log.add({{"set-up", 0.3}, {"timed calls", 1.0}});
  log.add({{"set-up", 0.1}, {"timed calls", 2.0}, {"end", 0.5}});
  log.add({{"set-up", 0.2}, {"timed calls", 3.0}});
  EXPECT_EQ(log.medians(), "set-up 0.200 s, timed calls 2.000 s, end 0.500 s");
}

// One long set-up in ten moves no median but costs its time: the means show it, and so does
// the 90th percentile.
TEST(PhaseLog, MeansAndNinetiethPercentilesShowTheLongRuns) {
  PhaseLog log;
  for (int run = 0; run < 9; ++run) log.add({{"set-up", 0.2}});
  log.add({{"set-up", 2.2}});
  EXPECT_EQ(log.medians(), "set-up 0.200 s");
  EXPECT_EQ(log.means(), "set-up 0.400 s");
  EXPECT_EQ(log.p90s(), "set-up 0.400 s");  // interpolated between the 9th and 10th of ten
}

TEST(PhaseTimes, APhaseThatRecursAddsUpInTheOrderFirstEnded) {
  PhaseTimes times;
  times.mark("before the start");  // not a phase: the clock has not started
  times.start();
  times.mark("call");
  times.mark("check");
  times.mark("call");
  const PhaseSeconds phases = times.phases();
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].first, "call");
  EXPECT_EQ(phases[1].first, "check");
  EXPECT_GE(phases[0].second, 0.0);
}

TEST(PhaseLog, KeepsTheLatestRunsOnly) {
  PhaseLog log;
  for (std::size_t run = 0; run < PhaseLog::kKeptRuns; ++run) log.add({{"set-up", 1.0}});
  for (std::size_t run = 0; run < PhaseLog::kKeptRuns / 2 + 1; ++run) log.add({{"set-up", 2.0}});
  EXPECT_EQ(log.medians(), "set-up 2.000 s") << "the older half of the runs is forgotten";
}

}  // namespace
}  // namespace hpcreward
