#include "coordinator/ranks/scheduler.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace hpcreward {
namespace {

// CPU ranks with one slot each.
Scheduler cpu_ranks(std::vector<int> ranks) {
  std::vector<RankCapacity> capacities;
  for (int rank : ranks) capacities.push_back({rank, "cpu", 1});
  return Scheduler(std::move(capacities));
}

TEST(Scheduler, GivesEachIdleRankOneTask) {
  Scheduler scheduler = cpu_ranks({1, 2});
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
  Scheduler scheduler = cpu_ranks({1, 2});
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
  Scheduler scheduler = cpu_ranks({1});
  scheduler.enqueue(0);
  scheduler.next_assignment();
  EXPECT_FALSE(scheduler.complete(1, 5));
  EXPECT_FALSE(scheduler.complete(3, 0));
  EXPECT_TRUE(scheduler.complete(1, 0));
  EXPECT_FALSE(scheduler.complete(1, 0)) << "a task completes once";
  EXPECT_TRUE(scheduler.finished());
}

TEST(Scheduler, TasksGoOnlyToRanksOfTheirKind) {
  Scheduler scheduler({{1, "cpu", 1}, {2, "gpu", 1}, {3, "cpu", 1}});
  // Interleaved C (cpu) and CUDA (gpu) tasks.
  std::map<std::int64_t, std::string> kind_of = {{0, "gpu"}, {1, "cpu"}, {2, "gpu"}, {3, "cpu"}, {4, "cpu"}};
  for (const auto &[sequence, kind] : kind_of) ASSERT_TRUE(scheduler.enqueue(sequence, kind));
  const std::map<int, std::string> rank_kind = {{1, "cpu"}, {2, "gpu"}, {3, "cpu"}};
  std::vector<std::int64_t> order;
  while (!scheduler.finished()) {
    std::vector<Assignment> round;
    while (auto assignment = scheduler.next_assignment()) {
      EXPECT_EQ(rank_kind.at(assignment->rank), kind_of.at(assignment->sequence))
          << "task " << assignment->sequence << " went to rank " << assignment->rank;
      round.push_back(*assignment);
    }
    ASSERT_FALSE(round.empty()) << "tasks queued but none assigned";
    for (const Assignment &assignment : round) {
      order.push_back(assignment.sequence);
      ASSERT_TRUE(scheduler.complete(assignment.rank, assignment.sequence));
    }
  }
  // FIFO per kind: gpu 0 before 2, cpu 1 before 3 before 4.
  auto position = [&](std::int64_t sequence) { return std::find(order.begin(), order.end(), sequence) - order.begin(); };
  EXPECT_LT(position(0), position(2));
  EXPECT_LT(position(1), position(3));
  EXPECT_LT(position(3), position(4));
}

TEST(Scheduler, RefusesAKindNoRankHas) {
  Scheduler scheduler = cpu_ranks({1, 2});
  EXPECT_TRUE(scheduler.has_kind("cpu"));
  EXPECT_FALSE(scheduler.has_kind("gpu"));
  EXPECT_FALSE(scheduler.enqueue(0, "gpu")) << "nothing could ever take it";
  EXPECT_TRUE(scheduler.finished());
  EXPECT_EQ(scheduler.queued(), 0u);
}

TEST(Scheduler, ARankHoldsUpToItsSlots) {
  Scheduler scheduler({{5, "gpu", 3}});
  for (int i = 0; i < 6; ++i) scheduler.enqueue(i, "gpu");
  for (int i = 0; i < 3; ++i) {
    auto assignment = scheduler.next_assignment();
    ASSERT_TRUE(assignment);
    EXPECT_EQ(assignment->rank, 5);
    EXPECT_EQ(assignment->sequence, i);
  }
  EXPECT_FALSE(scheduler.next_assignment()) << "never more than its slots";
  EXPECT_EQ(scheduler.running(), 3u);
  EXPECT_EQ(scheduler.queued(), 3u);
  // A slow candidate (0) does not hold the others: each finished slot takes the next task.
  ASSERT_TRUE(scheduler.complete(5, 2));
  EXPECT_EQ(scheduler.next_assignment()->sequence, 3);
  EXPECT_FALSE(scheduler.next_assignment());
  ASSERT_TRUE(scheduler.complete(5, 1));
  ASSERT_TRUE(scheduler.complete(5, 3));
  EXPECT_EQ(scheduler.next_assignment()->sequence, 4);
  EXPECT_EQ(scheduler.next_assignment()->sequence, 5);
  EXPECT_FALSE(scheduler.next_assignment());
  EXPECT_FALSE(scheduler.complete(5, 3)) << "a task completes once";
}

TEST(Scheduler, SpreadsOverRanksBeforeFillingSlots) {
  Scheduler scheduler({{1, "gpu", 2}, {2, "gpu", 2}});
  for (int i = 0; i < 5; ++i) scheduler.enqueue(i, "gpu");
  std::vector<int> ranks;
  while (auto assignment = scheduler.next_assignment()) ranks.push_back(assignment->rank);
  EXPECT_EQ(ranks, (std::vector<int>{1, 2, 1, 2})) << "one task each before a second";
  EXPECT_EQ(scheduler.queued(), 1u);
}

TEST(Scheduler, SlotsBelowOneCountAsOne) {
  Scheduler scheduler({{1, "cpu", 0}});
  scheduler.enqueue(0);
  scheduler.enqueue(1);
  EXPECT_TRUE(scheduler.next_assignment());
  EXPECT_FALSE(scheduler.next_assignment());
}

TEST(Scheduler, ARankTakenOutGivesItsTasksBackToTheFrontInOrder) {
  Scheduler scheduler({{1, "gpu", 2}, {2, "gpu", 2}});
  for (int i = 0; i < 6; ++i) scheduler.enqueue(i, "gpu");
  std::map<int, std::vector<std::int64_t>> held;
  while (auto assignment = scheduler.next_assignment()) held[assignment->rank].push_back(assignment->sequence);
  EXPECT_EQ(held[1], (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(scheduler.held_by(1), (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(scheduler.remove_rank(1), (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(scheduler.queued_of("gpu"), (std::vector<std::int64_t>{0, 2, 4, 5}));
  EXPECT_FALSE(scheduler.complete(1, 0)) << "a rank taken out completes nothing";
  EXPECT_TRUE(scheduler.remove_rank(1).empty()) << "once";
  EXPECT_TRUE(scheduler.has_kind("gpu"));
  EXPECT_FALSE(scheduler.next_assignment()) << "rank 2's slots are full";
  ASSERT_TRUE(scheduler.complete(2, 1));
  auto next = scheduler.next_assignment();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->rank, 2);
  EXPECT_EQ(next->sequence, 0) << "the returned tasks go first";
  EXPECT_TRUE(scheduler.stranded_kinds().empty());
}

TEST(Scheduler, TasksReturnedByTwoRanksKeepTheirOrder) {
  Scheduler scheduler = cpu_ranks({1, 2, 3});
  for (int i = 0; i < 5; ++i) scheduler.enqueue(i);
  while (scheduler.next_assignment()) {
  }
  scheduler.remove_rank(1);  // held 0
  scheduler.remove_rank(2);  // held 1
  EXPECT_EQ(scheduler.queued_of("cpu"), (std::vector<std::int64_t>{0, 1, 3, 4}));
}

TEST(Scheduler, AKindWithTasksButNoRankLeftIsStranded) {
  Scheduler scheduler({{1, "cpu", 1}, {2, "gpu", 1}});
  scheduler.enqueue(0, "cpu");
  scheduler.enqueue(1, "gpu");
  scheduler.enqueue(2, "gpu");
  scheduler.next_assignment();
  scheduler.next_assignment();
  scheduler.remove_rank(2);
  EXPECT_FALSE(scheduler.has_kind("gpu"));
  EXPECT_EQ(scheduler.stranded_kinds(), std::vector<std::string>{"gpu"});
  EXPECT_FALSE(scheduler.enqueue(3, "gpu")) << "nothing more is queued for a kind with no rank";
  EXPECT_EQ(scheduler.queued_of("gpu"), (std::vector<std::int64_t>{1, 2}));
}

}  // namespace
}  // namespace hpcreward
