#pragma once
// A GPU rank's tasks on their way to the pipeline, held back while their problem's yardsticks
// (common/yardsticks.hpp) are unknown: they are measured only while no candidate runs, so the
// tasks of a new problem (and every task after them, in order) wait until the pipeline has
// drained. Results get their problem's yardsticks on the way out. No CUDA here: the rank
// passes the measurement in (gpu_child.hpp measure_gpu_yardsticks).
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/messages.hpp"

namespace hpcreward::gpu {

class YardstickQueue {
 public:
  // Measures a problem's yardsticks; throws on failure (the problem then has none: zeros).
  using Measure = std::function<Yardsticks(const Problem &)>;
  // Told of each failed measurement, for the rank's console.
  using Failed = std::function<void(const Problem &, const std::string &why)>;

  YardstickQueue(Measure measure, Failed failed) : measure_(std::move(measure)), failed_(std::move(failed)) {}

  // A task from the coordinator: ready at once when its problem's yardsticks are known and
  // nothing waits before it, else it waits.
  void arrive(BenchTask task);
  bool waiting() const { return !waiting_.empty(); }
  // Call when the GPU is idle: measures every waiting problem not measured yet, once, and
  // releases the waiting tasks in their order.
  void measure_waiting();
  // The tasks to submit now, in arrival order.
  std::vector<BenchTask> take_ready();
  // Sets the result's yardsticks from its task's problem (a sequence it never saw: unchanged).
  void stamp(BenchResult &result);

 private:
  Measure measure_;
  Failed failed_;
  std::map<std::string, Yardsticks> measured_;         // by problem id
  std::map<std::int64_t, std::string> problem_of_;     // task sequence -> problem id
  std::deque<BenchTask> waiting_;
  std::vector<BenchTask> ready_;
};

}  // namespace hpcreward::gpu
