#pragma once
// A GPU rank's tasks on their way to the pipeline, held back while their problem's yardsticks
// (common/yardsticks.hpp) are unknown or old: they are measured only while no candidate runs, so
// the tasks of such a problem (and every task after them, in order) wait until the pipeline has
// drained. A figure is measured again before its problem's next task once it is `after_s` old,
// as long as the rank's yardsticks have taken at most `max_share` of its time (each measurement
// costs a drained pipeline). Every task is stamped with the figures its problem had when it was
// released, measured before it ran. No CUDA here: the rank passes the measurement in
// (gpu_child.hpp measure_gpu_yardsticks).
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/messages.hpp"

namespace hpcreward::gpu {

struct YardstickRefresh {
  double after_s = 60;
  // A problem's figures take 0.4 to 0.7 s and the drain about as long: at 1% and 60 s, a rank
  // with one problem spends about 2% of its time on them, one with many problems no more.
  double max_share = 0.01;
};

class YardstickQueue {
 public:
  // Measures a problem's yardsticks (`again`: it had a figure before); throws on failure (the
  // problem then has none: zeros).
  using Measure = std::function<Yardsticks(const Problem &, bool again)>;
  // Told of each failed measurement, for the rank's console.
  using Failed = std::function<void(const Problem &, const std::string &why)>;
  using Clock = std::function<double()>;

  YardstickQueue(Measure measure, Failed failed, YardstickRefresh refresh = {}, Clock clock = {});

  // A task from the coordinator: ready at once when its problem's yardsticks are known and
  // fresh (or the rank cannot afford them again yet) and nothing waits before it, else it waits.
  void arrive(BenchTask task);
  bool waiting() const { return !waiting_.empty(); }
  // Call when the GPU is idle: measures every waiting problem whose figures are due, once, and
  // releases the waiting tasks in their order.
  void measure_waiting();
  // The tasks to submit now, in arrival order.
  std::vector<BenchTask> take_ready();
  // Sets the result's yardsticks to those its task was released with (a sequence it never saw:
  // unchanged).
  void stamp(BenchResult &result);

 private:
  struct Figure {
    Yardsticks yardsticks;
    double measured_at = 0;
    double cost_s = 0;
  };
  bool due(const std::string &problem, double now) const;
  void release(BenchTask task);

  Measure measure_;
  Failed failed_;
  YardstickRefresh refresh_;
  Clock clock_;
  double started_at_ = 0;
  double spent_s_ = 0;                                // measuring, in all
  std::map<std::string, Figure> measured_;            // by problem id
  std::map<std::int64_t, Yardsticks> released_with_;  // task sequence -> its figures
  std::deque<BenchTask> waiting_;
  std::vector<BenchTask> ready_;
};

}  // namespace hpcreward::gpu
