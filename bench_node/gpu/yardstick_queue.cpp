#include "bench_node/gpu/yardstick_queue.hpp"

#include <exception>

namespace hpcreward::gpu {

void YardstickQueue::arrive(BenchTask task) {
  problem_of_[task.sequence] = task.problem.id;
  if (waiting_.empty() && measured_.count(task.problem.id))
    ready_.push_back(std::move(task));
  else
    waiting_.push_back(std::move(task));
}

void YardstickQueue::measure_waiting() {
  for (const BenchTask &task : waiting_) {
    if (measured_.count(task.problem.id)) continue;
    Yardsticks yardsticks;
    try {
      yardsticks = measure_(task.problem);
    } catch (const std::exception &error) {  // its rows carry none; a ratio reward mode says so
      if (failed_) failed_(task.problem, error.what());
    }
    measured_[task.problem.id] = yardsticks;
  }
  for (BenchTask &task : waiting_) ready_.push_back(std::move(task));
  waiting_.clear();
}

std::vector<BenchTask> YardstickQueue::take_ready() {
  std::vector<BenchTask> ready;
  ready.swap(ready_);
  return ready;
}

void YardstickQueue::stamp(BenchResult &result) {
  auto problem = problem_of_.find(result.sequence);
  if (problem == problem_of_.end()) return;
  if (auto measured = measured_.find(problem->second); measured != measured_.end())
    result.measurement.yardsticks = measured->second;
  problem_of_.erase(problem);
}

}  // namespace hpcreward::gpu
