#include "coordinator/scheduler.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

TEST(Scheduler, GivesEachIdleRankOneTask) {
  Scheduler scheduler({1, 2});
  for (int i = 0; i < 5; ++i) scheduler.enqueue(i);
  auto first = scheduler.next_assignment();
  auto second = scheduler.next_assignment();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->rank, 1);
  EXPECT_EQ(first->sequence, 0);
  EXPECT_EQ(second->rank, 2);
  EXPECT_EQ(second->sequence, 1);
  EXPECT_FALSE(scheduler.next_assignment()) << "no rank may hold two tasks at once";
  EXPECT_EQ(scheduler.queued(), 3u);
}

TEST(Scheduler, SlowRankDoesNotHoldTheQueue) {
  Scheduler scheduler({1, 2});
  for (int i = 0; i < 4; ++i) scheduler.enqueue(i);
  scheduler.next_assignment();  // rank 1 gets 0 and stays busy
  scheduler.next_assignment();  // rank 2 gets 1
  ASSERT_TRUE(scheduler.complete(2, 1));
  auto next = scheduler.next_assignment();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->rank, 2);
  EXPECT_EQ(next->sequence, 2);
  ASSERT_TRUE(scheduler.complete(2, 2));
  next = scheduler.next_assignment();
  EXPECT_EQ(next->rank, 2);
  EXPECT_EQ(next->sequence, 3);
}

TEST(Scheduler, RejectsResultsForTasksNotGiven) {
  Scheduler scheduler({1});
  scheduler.enqueue(0);
  scheduler.next_assignment();
  EXPECT_FALSE(scheduler.complete(1, 5));
  EXPECT_FALSE(scheduler.complete(3, 0));
  EXPECT_TRUE(scheduler.complete(1, 0));
  EXPECT_FALSE(scheduler.complete(1, 0)) << "a task completes once";
  EXPECT_TRUE(scheduler.finished());
}

}  // namespace
}  // namespace hpcreward
