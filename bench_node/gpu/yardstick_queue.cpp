#include "bench_node/gpu/yardstick_queue.hpp"

#include <algorithm>
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

bool YardstickQueue::affordable(const std::string &problem, double now) const {
  return spent_s_ + measured_.at(problem).cost_s <= refresh_.max_share * (now - started_at_);
}

bool YardstickQueue::must_wait(const std::string &problem, double now) const {
  const auto found = measured_.find(problem);
  if (found == measured_.end()) return true;
  return now - found->second.measured_at >= refresh_.hold_after_s && affordable(problem, now);
}

void YardstickQueue::measure(const Problem &problem) {
  const bool again = measured_.count(problem.id) > 0;
  const double start = clock_();
  Yardsticks yardsticks;
  try {
    yardsticks = measure_(problem, again);
  } catch (const std::exception &error) {  // its rows carry none; a ratio reward mode says so
    if (failed_) failed_(problem, error.what());
  }
  const double end = clock_();
  spent_s_ += end - start;
  measured_[problem.id] = {yardsticks, start, end - start};
}

void YardstickQueue::release(BenchTask task) {
  if (auto figure = measured_.find(task.problem.id); figure != measured_.end())
    released_with_[task.sequence] = figure->second.yardsticks;
  ready_.push_back(std::move(task));
}

void YardstickQueue::arrive(BenchTask task) {
  problems_.try_emplace(task.problem.id, task.problem);
  if (waiting_.empty() && !must_wait(task.problem.id, clock_()))
    release(std::move(task));
  else
    waiting_.push_back(std::move(task));
}

void YardstickQueue::measure_waiting() {
  std::set<std::string> measured_now;
  for (const BenchTask &task : waiting_) {
    const std::string &id = task.problem.id;
    if (measured_now.count(id) || !must_wait(id, clock_())) continue;
    measured_now.insert(id);
    measure(task.problem);
  }
  for (BenchTask &task : waiting_) release(std::move(task));
  waiting_.clear();
}

bool YardstickQueue::refresh_idle() {
  // Called at every idle turn of the rank's loop: nothing is allocated until a figure is due.
  const double now = clock_();
  const auto due = [&](const auto &entry) {
    return now - entry.second.measured_at >= refresh_.after_s && affordable(entry.first, now);
  };
  if (std::none_of(measured_.begin(), measured_.end(), due)) return false;
  std::vector<std::pair<double, std::string>> oldest_first;
  for (const auto &entry : measured_)
    if (due(entry)) oldest_first.emplace_back(entry.second.measured_at, entry.first);
  std::sort(oldest_first.begin(), oldest_first.end());
  for (const auto &[measured_at, id] : oldest_first)
    if (affordable(id, clock_())) measure(problems_.at(id));
  return true;
}

std::vector<BenchTask> YardstickQueue::take_ready() {
  std::vector<BenchTask> ready;
  ready.swap(ready_);
  return ready;
}

Yardsticks YardstickQueue::stamp(BenchResult &result) {
  auto released = released_with_.find(result.sequence);
  if (released == released_with_.end()) return {};
  result.measurement.yardsticks = released->second;
  released_with_.erase(released);
  return result.measurement.yardsticks;
}

}  // namespace hpcreward::gpu
