#pragma once
// A GPU rank's pipeline: the coordinator hands the rank up to `slots` tasks; worker
// threads run everything up to the GPU (source checks, nvcc, object audit, SASS techniques)
// on the rank's CPU cores while one thread runs the prepared candidates on the GPU, one at a
// time, in the order they became ready. With staged runs (staged_run.hpp) the next
// candidate's processes are set up while the current one verifies, between its calibration
// and its timed calls; a set-up that fails meanwhile is made again once the current run has
// ended (the candidate running beside it may have caused it). No MPI here: the rank's main
// thread feeds tasks in and takes results out (gpu_rank.cpp), so this is tested with fake
// runners.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "bench_node/gpu/phase_log.hpp"
#include "bench_node/gpu/setup_turns.hpp"
#include "bench_node/gpu/staged_run.hpp"
#include "bench_node/rank/scorer.hpp"
#include "common/messages.hpp"

namespace hpcreward {

class GpuTaskPipeline {
 public:
  // `finish` turns a measurement into the result (rank, host, device; the rank's main thread
  // applies the peak guard and prints the progress line once it takes the result); it runs on
  // the GPU thread, or on a worker for a task refused before the GPU (so thread-safe).
  // `after_run` is told whether the child ended abnormally; it runs the canary and returns false
  // when the GPU is lost (the pipeline then stops running).
  using Finish = std::function<BenchResult(const BenchTask &, Measurement)>;
  using AfterRun = std::function<bool(const BenchTask &, const Measurement &)>;
  // Starts a prepared task's run (it waits for prepare()); unset: the scorer's runner, unstaged.
  using StartRun = std::function<std::unique_ptr<StagedRun>(PreparedTask &)>;

  // `turns` (may be null: none): the node's GPU ranks take turns setting a run up (setup_turns.hpp).
  GpuTaskPipeline(Scorer &scorer, int workers, Finish finish, AfterRun after_run, StartRun start_run = {},
                  const SetupTurns *turns = nullptr);
  ~GpuTaskPipeline();  // stops the threads; unfinished tasks are dropped
  GpuTaskPipeline(const GpuTaskPipeline &) = delete;
  GpuTaskPipeline &operator=(const GpuTaskPipeline &) = delete;

  void submit(BenchTask task);
  // Results finished since the last call (never blocks).
  std::vector<BenchResult> take_results();
  // Every submitted task has a result taken or waiting.
  bool idle() const;
  // The GPU failed its canary: nothing more runs; the rank must stop.
  bool gpu_lost() const;
  // Seconds the GPU thread spent running candidates (the children), for the rank's report.
  double gpu_busy_s() const;
  // Tasks prepared and waiting for the GPU.
  std::size_t ready_to_run() const;
  // Runs whose set-up failed beside another candidate's run and were set up again alone.
  int setups_made_again() const;
  // Where the runs' time went, the rank's view ("rank: ...", from a run's turn to its result)
  // and the measurers' ("measurer: ...", from go on), each phase's median, mean and 90th
  // percentile (phase_log.hpp); empty before any run.
  struct PhaseSummary {
    std::string medians, means, p90s;
  };
  PhaseSummary phase_summary() const;

 private:
  struct Turn {
    std::unique_ptr<PreparedTask> prepared;  // where the run's request points
    std::unique_ptr<StagedRun> run;
    bool told_to_prepare = false;
    void prepare() {
      if (!std::exchange(told_to_prepare, true)) run->prepare();
    }
  };
  void prepare_loop();
  void gpu_loop();
  // Tells the turn's run to set up and waits until it is ready, in this node's turn; false
  // when it ended first (its set-up failed; its candidate never ran).
  bool set_up(Turn &turn) const;
  // The next ready task with its run started (not yet told to prepare); nullopt when stopping,
  // the GPU is lost, or (without `wait`) none is ready.
  std::optional<Turn> next_turn(bool wait);
  // `prepared`'s run started; nullopt when stopping or the GPU is lost.
  std::optional<Turn> start_turn(std::unique_ptr<PreparedTask> prepared);

  Scorer &scorer_;
  Finish finish_;
  AfterRun after_run_;
  StartRun start_run_;
  const SetupTurns *turns_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::deque<BenchTask> to_prepare_;
  std::deque<PreparedTask> to_run_;
  std::vector<BenchResult> results_;
  int in_flight_ = 0;  // submitted, result not yet handed out
  bool stopping_ = false;
  bool gpu_lost_ = false;
  double gpu_busy_s_ = 0;
  int setups_made_again_ = 0;
  PhaseLog phases_;
  std::vector<std::thread> workers_;
  std::thread gpu_thread_;
};

}  // namespace hpcreward
