#pragma once
// A GPU rank's tasks on their way to the pipeline, held back while their problem's yardsticks
// (common/yardsticks.hpp) are unknown: they are measured only while no candidate runs, so the
// tasks of such a problem (and every task after them, in order) wait until the pipeline has
// drained. Figures are measured again once old: at a moment the pipeline is idle anyway (between
// a trainer's batches) once `after_s` old, and, for a rank that is never idle, by holding the
// next task of a problem whose figure is `hold_after_s` old; both only while the rank's
// yardsticks have taken at most `max_share` of its time. Every task is stamped with the figures
// its problem had when it was released, measured before it ran. No CUDA here: the rank passes
// the measurement in (gpu_child.hpp measure_gpu_yardsticks).
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/messages.hpp"

namespace hpcreward::gpu {

struct YardstickRefresh {
  double after_s = 60;       // measured again at an idle moment once this old
  double hold_after_s = 600;  // a task waits for a drain once its problem's figure is this old
  // A problem's figures took 0.5 to 0.6 s on an H200 (cuBLAS SGEMM and HGEMM at 4096, four
  // runs: 388.1 to 397.1 and 752.7 to 754.7 TFLOPS); a held task also costs the drain and, after
  // it, its own compile before the GPU has work again.
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

  // A task from the coordinator: ready at once when its problem's yardsticks are known (and not
  // so old that it must wait for them) and nothing waits before it, else it waits.
  void arrive(BenchTask task);
  bool waiting() const { return !waiting_.empty(); }
  // Call when the GPU is idle: measures every waiting problem whose figures are due, once, and
  // releases the waiting tasks in their order.
  void measure_waiting();
  // Call when the pipeline is idle and nothing waits: measures again the figures `after_s` old,
  // oldest first, while the share allows. Whether it measured any.
  bool refresh_idle();
  // The tasks to submit now, in arrival order.
  std::vector<BenchTask> take_ready();
  // Sets the result's yardsticks to those its task was released with and returns them (a
  // sequence it never saw: the result unchanged, zeros returned).
  Yardsticks stamp(BenchResult &result);

 private:
  struct Figure {
    Yardsticks yardsticks;
    double measured_at = 0;
    double cost_s = 0;
  };
  bool affordable(const std::string &problem, double now) const;
  bool must_wait(const std::string &problem, double now) const;
  void measure(const Problem &problem);
  void release(BenchTask task);

  Measure measure_;
  Failed failed_;
  YardstickRefresh refresh_;
  Clock clock_;
  double started_at_ = 0;
  double spent_s_ = 0;                                // measuring, in all
  std::map<std::string, Figure> measured_;            // by problem id
  std::map<std::string, Problem> problems_;           // by problem id, for measuring again
  std::map<std::int64_t, Yardsticks> released_with_;  // task sequence -> its figures
  std::deque<BenchTask> waiting_;
  std::vector<BenchTask> ready_;
};

}  // namespace hpcreward::gpu
