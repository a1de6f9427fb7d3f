// The liveness deadline of benchmark ranks, on a clock the test moves by hand.
#include "coordinator/ranks/rank_watch.hpp"

#include <gtest/gtest.h>

#include "coordinator/run/run_report.hpp"

namespace hpcreward {
namespace {

using Clock = RankWatch::Clock;

Clock::time_point at(double seconds) {
  return Clock::time_point{} + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::vector<int> overdue_ranks(const RankWatch &watch, double seconds) {
  std::vector<int> ranks;
  for (const RankWatch::Overdue &late : watch.overdue(at(seconds))) ranks.push_back(late.rank);
  return ranks;
}

TEST(RankWatch, ARankHoldingATaskIsOverdueAtItsLimitPlusTheMargin) {
  RankWatch watch(RankWatch::Seconds(60));
  watch.add_rank(1, RankWatch::Seconds(10));
  watch.sent(1, 0, at(100));
  EXPECT_TRUE(overdue_ranks(watch, 169.9).empty());
  EXPECT_EQ(overdue_ranks(watch, 170), std::vector<int>{1});
  const RankWatch::Overdue late = watch.overdue(at(175)).front();
  EXPECT_DOUBLE_EQ(late.silent.count(), 75);
  EXPECT_DOUBLE_EQ(late.limit.count(), 10);
  EXPECT_DOUBLE_EQ(late.deadline.count(), 70);
  EXPECT_EQ(watch.next_deadline(), at(170));
}

TEST(RankWatch, AnIdleRankIsNeverOverdue) {
  RankWatch watch(RankWatch::Seconds(1));
  watch.add_rank(1, RankWatch::Seconds(1));
  watch.sent(1, 0, at(0));
  watch.answered(1, 0, at(0.5));
  EXPECT_TRUE(overdue_ranks(watch, 1000).empty());
  EXPECT_FALSE(watch.next_deadline());
}

TEST(RankWatch, CountsFromTheSendWhenTheRankWasIdleBefore) {
  RankWatch watch(RankWatch::Seconds(5));
  watch.add_rank(1, RankWatch::Seconds(10));
  watch.sent(1, 0, at(0));
  watch.answered(1, 0, at(1));
  watch.sent(1, 1, at(50));  // idle from 1 to 50: that is not silence
  EXPECT_TRUE(overdue_ranks(watch, 64.9).empty());
  EXPECT_EQ(overdue_ranks(watch, 65), std::vector<int>{1});
}

TEST(RankWatch, ARankWithSeveralTasksCountsFromItsLastAnswer) {
  // A GPU rank holds several tasks and answers each as it is done: a rank that keeps
  // answering is alive even though its oldest task was sent long ago.
  RankWatch watch(RankWatch::Seconds(5));
  watch.add_rank(2, RankWatch::Seconds(10));
  for (int sequence = 0; sequence < 4; ++sequence) watch.sent(2, sequence, at(0));
  watch.answered(2, 0, at(12));
  watch.answered(2, 1, at(24));
  watch.answered(2, 2, at(36));
  EXPECT_TRUE(overdue_ranks(watch, 50).empty()) << "15 s after its last answer, not after the oldest send";
  EXPECT_EQ(overdue_ranks(watch, 51), std::vector<int>{2});
}

TEST(RankWatch, RanksWithoutALimitHaveNoDeadline) {
  RankWatch watch(RankWatch::Seconds(1));
  watch.add_rank(1, RankWatch::Seconds(0));
  watch.sent(1, 0, at(0));
  EXPECT_TRUE(overdue_ranks(watch, 1e6).empty());
  EXPECT_FALSE(watch.next_deadline());
}

TEST(RankWatch, AQuarantinedRankIsOutForGood) {
  RankWatch watch(RankWatch::Seconds(1));
  watch.add_rank(1, RankWatch::Seconds(1));
  watch.add_rank(2, RankWatch::Seconds(3));
  watch.sent(1, 0, at(0));
  watch.sent(2, 1, at(0));
  EXPECT_EQ(watch.next_deadline(), at(2));
  EXPECT_EQ(overdue_ranks(watch, 2), std::vector<int>{1});
  watch.quarantine(1);
  EXPECT_TRUE(watch.quarantined(1));
  EXPECT_FALSE(watch.quarantined(2));
  EXPECT_TRUE(overdue_ranks(watch, 3).empty());
  EXPECT_EQ(watch.next_deadline(), at(4)) << "rank 2's deadline is next";
  EXPECT_EQ(overdue_ranks(watch, 4), std::vector<int>{2});
  EXPECT_EQ(watch.quarantined_ranks(), std::set<int>{1});
}

TEST(RankDeadlines, OneLinePerKindAndLimitAndANoteForRanksWithoutOne) {
  std::vector<RankInfo> ranks(4);
  for (int i = 0; i < 4; ++i) ranks[i].rank = i + 1;
  ranks[0].task_limit_s = ranks[1].task_limit_s = 100;
  ranks[2].kind = "gpu";
  ranks[2].task_limit_s = 300;
  const std::vector<std::string> lines = format_rank_deadlines(ranks, 60);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "note: rank 4 reported no task limit (an older hpcreward-bench): it has no answer deadline "
                      "and is never quarantined");
  EXPECT_EQ(lines[1], "deadline: cpu ranks 1,2 must answer within 160 s (task limit 100 s + margin 60 s) while "
                      "holding tasks, or be quarantined");
  EXPECT_EQ(lines[2].rfind("deadline: gpu rank 3 must answer within 360 s", 0), 0u) << lines[2];
}

}  // namespace
}  // namespace hpcreward
