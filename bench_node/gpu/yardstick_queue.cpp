#include "bench_node/gpu/yardstick_queue.hpp"

#include <exception>
#include <set>

#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward::gpu {

YardstickQueue::YardstickQueue(Measure measure, Failed failed, YardstickRefresh refresh, Clock clock)
    : measure_(std::move(measure)),
      failed_(std::move(failed)),
      refresh_(refresh),
      clock_(clock ? std::move(clock) : Clock(monotonic_seconds)),
      started_at_(clock_()) {}

bool YardstickQueue::due(const std::string &problem, double now) const {
  const auto found = measured_.find(problem);
  if (found == measured_.end()) return true;
  const Figure &figure = found->second;
  return now - figure.measured_at >= refresh_.after_s &&
         spent_s_ + figure.cost_s <= refresh_.max_share * (now - started_at_);
}

void YardstickQueue::release(BenchTask task) {
  if (auto figure = measured_.find(task.problem.id); figure != measured_.end())
    released_with_[task.sequence] = figure->second.yardsticks;
  ready_.push_back(std::move(task));
}

void YardstickQueue::arrive(BenchTask task) {
  if (waiting_.empty() && !due(task.problem.id, clock_()))
    release(std::move(task));
  else
    waiting_.push_back(std::move(task));
}

void YardstickQueue::measure_waiting() {
  std::set<std::string> measured_now;
  for (const BenchTask &task : waiting_) {
    const std::string &id = task.problem.id;
    if (measured_now.count(id) || !due(id, clock_())) continue;
    measured_now.insert(id);
    const bool again = measured_.count(id) > 0;
    const double start = clock_();
    Yardsticks yardsticks;
    try {
      yardsticks = measure_(task.problem, again);
    } catch (const std::exception &error) {  // its rows carry none; a ratio reward mode says so
      if (failed_) failed_(task.problem, error.what());
    }
    const double end = clock_();
    spent_s_ += end - start;
    measured_[id] = {yardsticks, start, end - start};
  }
  for (BenchTask &task : waiting_) release(std::move(task));
  waiting_.clear();
}

std::vector<BenchTask> YardstickQueue::take_ready() {
  std::vector<BenchTask> ready;
  ready.swap(ready_);
  return ready;
}

void YardstickQueue::stamp(BenchResult &result) {
  auto released = released_with_.find(result.sequence);
  if (released == released_with_.end()) return;
  result.measurement.yardsticks = released->second;
  released_with_.erase(released);
}

}  // namespace hpcreward::gpu
