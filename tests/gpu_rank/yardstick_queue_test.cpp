// A GPU rank's tasks held for their problem's yardsticks (bench_node/gpu/yardstick_queue.hpp):
// measured at a problem's first task and again once old (within the rank's share), only when
// the rank says the GPU is idle, tasks released in their order, results stamped with the
// figures their task was released with.
#include "bench_node/gpu/yardstick_queue.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace hpcreward::gpu {
namespace {

BenchTask task(std::int64_t sequence, const std::string &problem) {
  BenchTask t;
  t.sequence = sequence;
  t.problem.id = problem;
  return t;
}

std::vector<std::int64_t> sequences(const std::vector<BenchTask> &tasks) {
  std::vector<std::int64_t> out;
  for (const BenchTask &t : tasks) out.push_back(t.sequence);
  return out;
}

struct Measured {
  std::vector<std::string> problems;  // in the order measured, " again" when it had a figure
  std::vector<std::string> failures;
  double now = 0;                     // the injected clock
  double cost_s = 0;                  // how long each measurement takes on it
};

YardstickQueue queue_for(Measured &seen, YardstickRefresh refresh = {}) {
  return YardstickQueue(
      [&seen](const Problem &problem, bool again) {
        seen.problems.push_back(problem.id + (again ? " again" : ""));
        seen.now += seen.cost_s;
        if (problem.id == "broken") throw std::runtime_error("no GPU child");
        return Yardsticks{.cublas = 100.0 * seen.problems.size(), .cublaslt = 1};
      },
      [&seen](const Problem &problem, const std::string &why) { seen.failures.push_back(problem.id + ": " + why); },
      refresh, [&seen] { return seen.now; });
}

BenchResult result_of(std::int64_t sequence) {
  BenchResult result;
  result.sequence = sequence;
  return result;
}

TEST(YardstickQueue, ANewProblemWaitsForTheIdleGpuAndEverythingAfterItWaitsInOrder) {
  Measured seen;
  YardstickQueue queue = queue_for(seen);
  queue.arrive(task(1, "a"));
  queue.arrive(task(2, "a"));
  EXPECT_TRUE(queue.take_ready().empty());
  EXPECT_TRUE(queue.waiting());
  EXPECT_TRUE(seen.problems.empty()) << "nothing measured until the rank says the GPU is idle";
  queue.measure_waiting();
  EXPECT_EQ(seen.problems, std::vector<std::string>{"a"}) << "once per problem";
  EXPECT_EQ(sequences(queue.take_ready()), (std::vector<std::int64_t>{1, 2}));
  EXPECT_FALSE(queue.waiting());

  queue.arrive(task(3, "a"));  // known: straight through
  EXPECT_EQ(sequences(queue.take_ready()), std::vector<std::int64_t>{3});
  queue.arrive(task(4, "b"));
  queue.arrive(task(5, "a"));  // known, but behind one that waits: waits too
  EXPECT_TRUE(queue.take_ready().empty());
  queue.measure_waiting();
  EXPECT_EQ(seen.problems, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(sequences(queue.take_ready()), (std::vector<std::int64_t>{4, 5}));
}

TEST(YardstickQueue, ResultsCarryTheirProblemsFiguresAndAFailureLeavesZeros) {
  Measured seen;
  YardstickQueue queue = queue_for(seen);
  queue.arrive(task(1, "a"));
  queue.arrive(task(2, "broken"));
  queue.measure_waiting();
  queue.take_ready();
  EXPECT_EQ(seen.failures, std::vector<std::string>{"broken: no GPU child"});

  BenchResult first, second, stranger;
  first.sequence = 1;
  second.sequence = 2;
  stranger.sequence = 99;
  stranger.measurement.yardsticks.cublas = 7;
  EXPECT_EQ(queue.stamp(first), (Yardsticks{.cublas = 100, .cublaslt = 1})) << "what it set, returned";
  queue.stamp(second);
  EXPECT_EQ(queue.stamp(stranger), Yardsticks{}) << "no figures for a result of no task it saw";
  EXPECT_EQ(first.measurement.yardsticks, (Yardsticks{.cublas = 100, .cublaslt = 1}));
  EXPECT_EQ(second.measurement.yardsticks, Yardsticks{}) << "a failed measurement: none";
  EXPECT_EQ(stranger.measurement.yardsticks.cublas, 7) << "a result of no task it saw is left as it is";
  queue.arrive(task(3, "broken"));
  EXPECT_EQ(sequences(queue.take_ready()), std::vector<std::int64_t>{3}) << "not measured again";
}

TEST(YardstickQueue, AnOldFigureIsMeasuredAgainAtAnIdleMomentWithinTheRanksShare) {
  Measured seen;
  seen.cost_s = 0.5;
  YardstickQueue queue = queue_for(seen, {.after_s = 60, .hold_after_s = 600, .max_share = 0.01});
  queue.arrive(task(1, "a"));
  queue.measure_waiting();  // 0.5 s spent at 0.5 s
  queue.take_ready();

  seen.now = 59;
  EXPECT_FALSE(queue.refresh_idle()) << "59 s old: still fresh";
  seen.now = 61;
  EXPECT_FALSE(queue.refresh_idle()) << "60 s old, but 1 s of yardsticks would be over 1% of 61 s";
  queue.arrive(task(2, "a"));
  EXPECT_EQ(sequences(queue.take_ready()), std::vector<std::int64_t>{2}) << "an old figure holds no task back";
  seen.now = 100;
  EXPECT_TRUE(queue.refresh_idle());
  EXPECT_EQ(seen.problems, (std::vector<std::string>{"a", "a again"}));
  queue.arrive(task(3, "a"));
  EXPECT_EQ(sequences(queue.take_ready()), std::vector<std::int64_t>{3});

  BenchResult one = result_of(1), two = result_of(2), three = result_of(3);
  queue.stamp(one);
  queue.stamp(two);
  queue.stamp(three);
  EXPECT_EQ(one.measurement.yardsticks.cublas, 100);
  EXPECT_EQ(two.measurement.yardsticks.cublas, 100) << "released before the new figure";
  EXPECT_EQ(three.measurement.yardsticks.cublas, 200) << "the figure measured just before it ran";
}

TEST(YardstickQueue, ARankThatIsNeverIdleHoldsATaskOnceItsFigureIsVeryOld) {
  Measured seen;
  YardstickQueue queue = queue_for(seen, {.after_s = 60, .hold_after_s = 600, .max_share = 0.01});
  queue.arrive(task(1, "a"));
  queue.measure_waiting();
  queue.take_ready();
  seen.now = 599;
  queue.arrive(task(2, "a"));
  EXPECT_EQ(sequences(queue.take_ready()), std::vector<std::int64_t>{2});
  seen.now = 600;
  queue.arrive(task(3, "a"));
  queue.arrive(task(4, "a"));
  EXPECT_TRUE(queue.take_ready().empty()) << "600 s old: waits for the drained pipeline";
  queue.measure_waiting();
  EXPECT_EQ(seen.problems, (std::vector<std::string>{"a", "a again"})) << "once for both tasks";
  EXPECT_EQ(sequences(queue.take_ready()), (std::vector<std::int64_t>{3, 4}));
}

TEST(YardstickQueue, WithManyProblemsTheShareBoundsTheTimeSpentMeasuring) {
  Measured seen;
  seen.cost_s = 0.5;
  YardstickQueue queue = queue_for(seen, {.after_s = 60, .hold_after_s = 600, .max_share = 0.01});
  std::int64_t sequence = 0;
  for (int minute = 0; minute < 60; ++minute) {  // an hour, 20 problems each minute, idle between
    for (int p = 0; p < 20; ++p) queue.arrive(task(++sequence, "p" + std::to_string(p)));
    if (queue.waiting()) queue.measure_waiting();
    queue.take_ready();
    queue.refresh_idle();
    seen.now = 60.0 * (minute + 1);
  }
  const double spent = 0.5 * static_cast<double>(seen.problems.size());
  EXPECT_LE(spent, 0.01 * 3600 + 20 * 0.5) << "the first figures, then at most 1% of the hour";
  EXPECT_GT(seen.problems.size(), 20u) << "some measured again";
}

}  // namespace
}  // namespace hpcreward::gpu
