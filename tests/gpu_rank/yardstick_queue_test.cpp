// A GPU rank's tasks held for their problem's yardsticks (bench_node/gpu/yardstick_queue.hpp):
// measured once per problem, only when the rank says the GPU is idle, tasks released in their
// order, results stamped with their problem's figures.
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
  std::vector<std::string> problems;  // in the order measured
  std::vector<std::string> failures;
};

YardstickQueue queue_for(Measured &seen) {
  return YardstickQueue(
      [&seen](const Problem &problem) {
        seen.problems.push_back(problem.id);
        if (problem.id == "broken") throw std::runtime_error("no GPU child");
        return Yardsticks{.cublas = 100.0 * seen.problems.size(), .cublaslt = 1};
      },
      [&seen](const Problem &problem, const std::string &why) { seen.failures.push_back(problem.id + ": " + why); });
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
  queue.stamp(first);
  queue.stamp(second);
  queue.stamp(stranger);
  EXPECT_EQ(first.measurement.yardsticks, (Yardsticks{.cublas = 100, .cublaslt = 1}));
  EXPECT_EQ(second.measurement.yardsticks, Yardsticks{}) << "a failed measurement: none";
  EXPECT_EQ(stranger.measurement.yardsticks.cublas, 7) << "a result of no task it saw is left as it is";
  queue.arrive(task(3, "broken"));
  EXPECT_EQ(sequences(queue.take_ready()), std::vector<std::int64_t>{3}) << "not measured again";
}

}  // namespace
}  // namespace hpcreward::gpu
