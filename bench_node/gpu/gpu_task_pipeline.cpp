#include "bench_node/gpu/gpu_task_pipeline.hpp"

#include <future>

#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward {

namespace {

// The scorer's runner in one go, as a run without stages.
class UnstagedRun : public StagedRun {
 public:
  UnstagedRun(Scorer &scorer, PreparedTask &prepared) : scorer_(scorer), prepared_(prepared) {}
  void prepare() override {}
  bool await_ready() override { return true; }
  void go() override {}
  void quiet() override {}
  void await_calibrated() override {}
  void allow_timing() override {}
  Measurement finish() override { return scorer_.run(prepared_); }
  void await_ended() override {}

 private:
  Scorer &scorer_;
  PreparedTask &prepared_;
};

}  // namespace

GpuTaskPipeline::GpuTaskPipeline(Scorer &scorer, int workers, Finish finish, AfterRun after_run, StartRun start_run,
                                 const SetupTurns *turns)
    : scorer_(scorer),
      finish_(std::move(finish)),
      after_run_(std::move(after_run)),
      start_run_(std::move(start_run)),
      turns_(turns) {
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { prepare_loop(); });
  gpu_thread_ = std::thread([this] { gpu_loop(); });
}

GpuTaskPipeline::~GpuTaskPipeline() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread &worker : workers_) worker.join();
  gpu_thread_.join();
}

void GpuTaskPipeline::submit(BenchTask task) {
  {
    std::lock_guard lock(mutex_);
    to_prepare_.push_back(std::move(task));
    ++in_flight_;
  }
  work_ready_.notify_all();
}

std::vector<BenchResult> GpuTaskPipeline::take_results() {
  std::lock_guard lock(mutex_);
  std::vector<BenchResult> taken;
  taken.swap(results_);
  in_flight_ -= static_cast<int>(taken.size());
  return taken;
}

bool GpuTaskPipeline::idle() const {
  std::lock_guard lock(mutex_);
  return in_flight_ == 0;
}

bool GpuTaskPipeline::gpu_lost() const {
  std::lock_guard lock(mutex_);
  return gpu_lost_;
}

double GpuTaskPipeline::gpu_busy_s() const {
  std::lock_guard lock(mutex_);
  return gpu_busy_s_;
}

std::size_t GpuTaskPipeline::ready_to_run() const {
  std::lock_guard lock(mutex_);
  return to_run_.size();
}

int GpuTaskPipeline::setups_made_again() const {
  std::lock_guard lock(mutex_);
  return setups_made_again_;
}

GpuTaskPipeline::PhaseSummary GpuTaskPipeline::phase_summary() const {
  std::lock_guard lock(mutex_);
  return {phases_.medians(), phases_.means(), phases_.p90s()};
}

void GpuTaskPipeline::prepare_loop() {
  for (;;) {
    BenchTask task;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || !to_prepare_.empty(); });
      if (stopping_) return;
      task = std::move(to_prepare_.front());
      to_prepare_.pop_front();
    }
    PreparedTask prepared = scorer_.prepare(task);
    if (prepared.refused) {  // never waits for the GPU
      BenchResult result = finish_(prepared.task, *prepared.refused);
      std::lock_guard lock(mutex_);
      results_.push_back(std::move(result));
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      to_run_.push_back(std::move(prepared));
    }
    work_ready_.notify_all();
  }
}

std::optional<GpuTaskPipeline::Turn> GpuTaskPipeline::next_turn(bool wait) {
  auto prepared = std::make_unique<PreparedTask>();
  {
    std::unique_lock lock(mutex_);
    if (wait) work_ready_.wait(lock, [&] { return stopping_ || (!to_run_.empty() && !gpu_lost_); });
    if (stopping_ || gpu_lost_ || to_run_.empty()) return std::nullopt;
    *prepared = std::move(to_run_.front());
    to_run_.pop_front();
  }
  return start_turn(std::move(prepared));
}

std::optional<GpuTaskPipeline::Turn> GpuTaskPipeline::start_turn(std::unique_ptr<PreparedTask> prepared) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || gpu_lost_) return std::nullopt;
  }
  Turn turn{std::move(prepared), nullptr};
  turn.run = start_run_ ? start_run_(*turn.prepared) : std::make_unique<UnstagedRun>(scorer_, *turn.prepared);
  return turn;
}

bool GpuTaskPipeline::set_up(Turn &turn) const {
  if (turn.told_to_prepare || !turns_) {
    turn.prepare();
    return turn.run->await_ready();
  }
  const SetupTurns::Turn mine = turns_->take();
  turn.prepare();
  return turn.run->await_ready();
}

void GpuTaskPipeline::gpu_loop() {
  std::optional<Turn> next, previous;
  // A task whose set-up failed beside the current run: any code of that run's candidate can
  // call the driver and take the GPU's memory meanwhile, so the failure is not this task's to
  // answer for. It is set up again once that run has ended, alone; a set-up that fails alone
  // is answered.
  std::unique_ptr<PreparedTask> set_up_alone;
  // The run before `current` ends (its executor reaped) before `current` calibrates.
  const auto end_previous = [&previous](PhaseTimes &phases) {
    if (!previous) return;
    previous->run->await_ended();
    previous.reset();
    phases.mark("rank: the run before ending");
  };
  for (;;) {
    PhaseTimes rank_phases;
    rank_phases.start();
    if (!next) end_previous(rank_phases);  // nothing set up ahead: no overlap to gain
    std::optional<Turn> current = next            ? std::move(next)
                                  : set_up_alone ? start_turn(std::move(set_up_alone))
                                                 : next_turn(true);
    next.reset();
    if (!current) return;
    set_up(*current);
    rank_phases.mark("rank: waiting for its set-up");
    const double start = monotonic_seconds();
    current->run->go();
    std::future<Measurement> finished =
        std::async(std::launch::async, [&run = *current->run] { return run.finish(); });
    // It checks and warms the GPU up while the run before ends.
    end_previous(rank_phases);
    current->run->quiet();
    // The next candidate's process starts now (its driver's start is host work) and sets up its
    // contexts while this one verifies: after its calibration, before its timed calls
    // (staged_run.hpp). A run that ends early has said both. Children are started on this
    // thread only: their parent-death signal follows the thread that forked them.
    next = next_turn(false);
    current->run->await_calibrated();
    rank_phases.mark("rank: to its calibration");
    if (!next) next = next_turn(false);
    if (next && !set_up(*next)) {
      next->run.reset();  // it ended (a serving measurer is retired): nothing of it is left
      set_up_alone = std::move(next->prepared);
      next.reset();
      std::lock_guard lock(mutex_);
      ++setups_made_again_;
    }
    rank_phases.mark("rank: to the next one's set-up");
    current->run->allow_timing();
    Measurement measurement = finished.get();
    rank_phases.mark("rank: to its result");
    const double busy = monotonic_seconds() - start;
    measurement = scorer_.complete(*current->prepared, std::move(measurement));
    const BenchTask &task = current->prepared->task;
    const bool healthy = after_run_(task, measurement);
    BenchResult result = finish_(task, std::move(measurement));
    rank_phases.mark("rank: after the result");
    PhaseSeconds phases = rank_phases.phases();
    for (const auto &[name, seconds] : current->run->phases()) phases.emplace_back("measurer: " + name, seconds);
    {
      std::lock_guard lock(mutex_);
      phases_.add(phases);
      gpu_busy_s_ += busy;
      results_.push_back(std::move(result));
      if (!healthy) gpu_lost_ = true;
    }
    previous = std::move(current);
    if (!healthy) next.reset();  // its child ends with it: nothing more runs on a lost GPU
  }
}

}  // namespace hpcreward
