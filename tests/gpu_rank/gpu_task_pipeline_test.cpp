// The GPU rank's pipeline with a fake compiler and runner: every task gets one result, refused
// tasks never wait for the GPU, compiles overlap the GPU, a set-up that fails beside another run
// is made again alone, a lost GPU stops the pipeline.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <utility>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "bench_node/gpu/gpu_task_pipeline.hpp"
#include "bench_node/process/child_process.hpp"
#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward {
namespace {

using namespace std::chrono_literals;

class SlowCompiler : public Compiler {
 public:
  explicit SlowCompiler(std::chrono::milliseconds delay) : delay_(delay) {}
  CompileOutcome compile(const CompileRequest &request) override {
    std::this_thread::sleep_for(delay_);
    CompileOutcome outcome;
    if (request.source.find("broken") != std::string::npos) {
      outcome.verdict = {Status::compile_error, "broken"};
      return outcome;
    }
    outcome.object = request.directory / "cand.so";
    std::ofstream(outcome.object) << "object";
    return outcome;
  }

 private:
  std::chrono::milliseconds delay_;
};

class TimedRunner : public CandidateRunner {
 public:
  explicit TimedRunner(std::chrono::milliseconds delay) : delay_(delay) {}
  Measurement run(const RunRequest &request) override {
    const int now = ++running_;
    max_running_ = std::max(max_running_.load(), now);
    std::this_thread::sleep_for(delay_);
    --running_;
    Measurement measurement;
    measurement.status = request.task->source.find("crash") != std::string::npos ? Status::runtime_error : Status::ok;
    measurement.reason = measurement.status == Status::ok ? "" : "CUDA error: illegal address";
    measurement.gflops = 1;
    return measurement;
  }
  std::atomic<int> running_{0}, max_running_{0};

 private:
  std::chrono::milliseconds delay_;
};

// Every stage of every staged run, in the order the pipeline asked for them.
class StageLog {
 public:
  void add(const std::string &event) {
    std::lock_guard lock(mutex_);
    events_.push_back(event);
  }
  std::vector<std::string> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }
  // Index of `event`; -1 if absent.
  int at(const std::string &event) const {
    const std::vector<std::string> all = events();
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i] == event) return static_cast<int>(i);
    return -1;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> events_;
};

// `set_up_fails`: it ends in its set-up, as a measurer does that cannot make its executor's
// context or operand pool; finish() then answers that failure.
class FakeStagedRun : public StagedRun {
 public:
  FakeStagedRun(StageLog &log, std::string id, std::function<void()> on_calibrated, bool set_up_fails = false)
      : log_(log), id_(std::move(id)), on_calibrated_(std::move(on_calibrated)), set_up_fails_(set_up_fails) {}
  void prepare() override { log_.add("prepare " + id_); }
  bool await_ready() override {
    log_.add((set_up_fails_ ? "set-up failed " : "ready ") + id_);
    return !set_up_fails_;
  }
  void go() override { log_.add("go " + id_); }
  void quiet() override { log_.add("quiet " + id_); }
  void await_calibrated() override {
    if (on_calibrated_) on_calibrated_();
    log_.add("calibrated " + id_);
  }
  void allow_timing() override { log_.add("time " + id_); }
  Measurement finish() override {
    log_.add("finish " + id_);
    if (set_up_fails_) return failed_measurement(Status::runtime_error, "CUDA error: out of memory (the operand pool)");
    Measurement measurement;
    measurement.status = Status::ok;
    measurement.gflops = 1;
    return measurement;
  }
  void await_ended() override { log_.add("ended " + id_); }
  PhaseSeconds phases() const override { return {{"verification", 0.5}}; }

 private:
  StageLog &log_;
  std::string id_;
  std::function<void()> on_calibrated_;
  bool set_up_fails_;
};

// A real child speaking the measurer's side of the gate (start_gate.hpp) in sh: it must live
// from its start, ahead of its turn, until its turn has ended.
class ShellStagedRun : public StagedRun {
 public:
  ShellStagedRun() : child_(spec()) {}
  void prepare() override { child_.send('p'); }
  bool await_ready() override { return child_.await('r', 60); }
  void go() override { child_.send('g'); }
  void quiet() override { child_.send('q'); }
  void await_calibrated() override { child_.await('c', 60); }
  void allow_timing() override { child_.send('t'); }
  Measurement finish() override {
    const ChildOutcome outcome = child_.finish();
    Measurement measurement;
    measurement.status = outcome.exited && outcome.exit_code == 0 && outcome.result == "timed" ? Status::ok
                                                                                                : Status::runtime_error;
    measurement.reason = outcome.signaled ? describe_signal(outcome.signal) : outcome.result;
    return measurement;
  }
  void await_ended() override {}

 private:
  static ChildSpec spec() {
    ChildSpec spec;
    spec.program = "/bin/sh";
    const std::string byte = "$(dd bs=1 count=1 <&7 2>/dev/null)";
    spec.arguments = {"-c", "[ " + byte + " = p ] && printf r >&7 && [ " + byte + " = g ] && [ " + byte +
                                " = q ] && printf c >&7 && [ " + byte + " = t ] && printf timed >&3"};
    spec.environment = inherited_environment();
    spec.deadline_s = 60;
    spec.result_pipe = true;
    spec.gate = true;
    return spec;
  }
  RunningChild child_;
};

// A run's stage (on the GPU thread) waiting for the pipeline it belongs to, which a test can
// name only once it is constructed: so that whether the next task is ready when a run
// calibrates is made certain rather than left to the threads' timing.
class PipelineWaits {
 public:
  void publish(GpuTaskPipeline &pipeline) {
    {
      std::lock_guard lock(mutex_);
      pipeline_ = &pipeline;
    }
    published_.notify_all();
  }
  // Until `tasks` tasks are prepared and waiting for the GPU or among the `started` ones.
  void await_prepared(int tasks, std::size_t started) {
    std::unique_lock lock(mutex_);
    published_.wait(lock, [&] { return pipeline_ != nullptr; });
    while (static_cast<int>(pipeline_->ready_to_run() + started) < tasks) std::this_thread::sleep_for(1ms);
  }

 private:
  std::mutex mutex_;
  std::condition_variable published_;
  GpuTaskPipeline *pipeline_ = nullptr;
};

class GpuTaskPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("hpcreward-pipeline-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  std::vector<BenchResult> run_all(GpuTaskPipeline &pipeline, int count) {
    std::vector<BenchResult> results;
    const double deadline = monotonic_seconds() + 20;
    while (static_cast<int>(results.size()) < count && monotonic_seconds() < deadline) {
      for (BenchResult &result : pipeline.take_results()) results.push_back(std::move(result));
      std::this_thread::sleep_for(1ms);
    }
    return results;
  }

  static BenchTask task(int sequence, const std::string &source) {
    BenchTask t;
    t.sequence = sequence;
    t.candidate_id = "c" + std::to_string(sequence);
    t.source = source;
    return t;
  }

  std::filesystem::path root_;
};

TEST_F(GpuTaskPipelineTest, EveryTaskGetsOneResultAndCompilesOverlapTheGpu) {
  BenchOptions options;
  options.work_root = root_;
  auto *runner = new TimedRunner(40ms);
  Scorer scorer(options, std::make_unique<SlowCompiler>(40ms), std::unique_ptr<CandidateRunner>(runner));
  int checked = 0;
  GpuTaskPipeline pipeline(
      scorer, 4, [](const BenchTask &t, Measurement m) { return BenchResult{t.sequence, std::move(m), 1, "h", "gpu"}; },
      [&](const BenchTask &, const Measurement &) { ++checked; return true; });
  const double start = monotonic_seconds();
  for (int i = 0; i < 8; ++i) pipeline.submit(task(i, "ok"));
  const std::vector<BenchResult> results = run_all(pipeline, 8);
  const double wall = monotonic_seconds() - start;
  ASSERT_EQ(results.size(), 8u);
  std::set<std::int64_t> sequences;
  for (const BenchResult &result : results) sequences.insert(result.sequence);
  EXPECT_EQ(sequences.size(), 8u);
  EXPECT_EQ(runner->max_running_.load(), 1) << "one candidate at a time on the GPU";
  // Serial would be 8 x (40 + 40) ms; overlapped, about 40 + 8 x 40 ms.
  EXPECT_LT(wall, 0.62) << "compiles did not overlap the GPU";
  EXPECT_TRUE(pipeline.idle());
  EXPECT_EQ(checked, 8);
  EXPECT_GT(pipeline.gpu_busy_s(), 0.3);
}

// The next candidate prepares between the current one's calibration and its timed calls, and
// goes only once the current one has finished: its GPU work never overlaps a calibration or a
// timed call. Whether a task is ready when the current one calibrates is made certain: the first
// run's calibration waits until every other task is prepared or started (so each run has a next
// one).
TEST_F(GpuTaskPipelineTest, TheNextRunPreparesOnlyWhileTheCurrentOneVerifies) {
  BenchOptions options;
  options.work_root = root_;
  Scorer scorer(options, std::make_unique<SlowCompiler>(0ms), std::make_unique<TimedRunner>(0ms));
  StageLog log;
  constexpr int kTasks = 4;
  PipelineWaits waits;
  std::size_t started_runs = 0;  // the GPU thread's only: it starts runs one at a time
  GpuTaskPipeline pipeline(
      scorer, 2, [](const BenchTask &t, Measurement m) { return BenchResult{t.sequence, std::move(m), 1, "h", "gpu"}; },
      [](const BenchTask &, const Measurement &) { return true; },
      [&](PreparedTask &prepared) -> std::unique_ptr<StagedRun> {
        std::function<void()> hold;
        if (++started_runs == 1) hold = [&] { waits.await_prepared(kTasks, started_runs); };
        return std::make_unique<FakeStagedRun>(log, prepared.task.candidate_id, hold);
      });
  for (int i = 0; i < kTasks; ++i) pipeline.submit(task(i, "ok"));
  waits.publish(pipeline);
  ASSERT_EQ(run_all(pipeline, kTasks).size(), static_cast<std::size_t>(kTasks));
  std::string all;
  std::vector<std::string> order;  // the runs in the order they went
  for (const std::string &event : log.events()) {
    all += event + "; ";
    if (event.rfind("go ", 0) == 0) order.push_back(event.substr(3));
  }
  ASSERT_EQ(order.size(), static_cast<std::size_t>(kTasks)) << all;
  for (int i = 0; i + 1 < kTasks; ++i) {
    const std::string &current = order[i], &next = order[i + 1];
    EXPECT_LT(log.at("calibrated " + current), log.at("prepare " + next)) << all;
    EXPECT_LT(log.at("ready " + next), log.at("time " + current)) << all;
    EXPECT_LT(log.at("finish " + current), log.at("go " + next)) << all;
    // The run before ends while the next one warms up; the next one calibrates after that.
    EXPECT_LT(log.at("go " + next), log.at("ended " + current)) << all;
    EXPECT_LT(log.at("ended " + current), log.at("quiet " + next)) << all;
    EXPECT_LT(log.at("quiet " + next), log.at("calibrated " + next)) << all;
  }
  // The rank's report of where the time went: its own view of each run, then the measurer's.
  const GpuTaskPipeline::PhaseSummary summary = pipeline.phase_summary();
  for (const std::string &phases : {summary.medians, summary.means, summary.p90s})
    for (const char *phase : {"rank: waiting for its set-up", "rank: the run before ending", "rank: to its calibration",
                              "rank: to the next one's set-up", "rank: to its result", "rank: after the result",
                              "measurer: verification 0.500 s"})
      EXPECT_NE(phases.find(phase), std::string::npos) << phase << " in " << phases;
}

// Any code of the running candidate can take the GPU's memory while the next run is set up
// beside it. That set-up's failure is not the next candidate's: its task is set up again once
// the run beside it has ended, and answered only if it fails alone too.
TEST_F(GpuTaskPipelineTest, ASetUpThatFailsBesideARunIsMadeAgainAloneOnce) {
  BenchOptions options;
  options.work_root = root_;
  Scorer scorer(options, std::make_unique<SlowCompiler>(0ms), std::make_unique<TimedRunner>(0ms));
  StageLog log;
  constexpr int kTasks = 4;
  PipelineWaits waits;
  std::map<std::string, int> runs_of;  // runs started, by candidate: the GPU thread's only
  GpuTaskPipeline pipeline(
      scorer, 1, [](const BenchTask &t, Measurement m) { return BenchResult{t.sequence, std::move(m), 1, "h", "gpu"}; },
      [](const BenchTask &, const Measurement &) { return true; },
      [&](PreparedTask &prepared) -> std::unique_ptr<StagedRun> {
        const std::string &candidate = prepared.task.candidate_id;
        const int run = ++runs_of[candidate];
        // Every task is prepared (one worker: in order) before the first calibration ends, so
        // each run has the next task to set up beside it.
        const std::function<void()> hold = [&] { waits.await_prepared(kTasks, runs_of.size()); };
        // c1's set-up fails beside c0 only; c3's fails every time (alone too).
        const bool fails = (candidate == "c1" && run == 1) || candidate == "c3";
        return std::make_unique<FakeStagedRun>(log, candidate + "#" + std::to_string(run), hold, fails);
      });
  for (int i = 0; i < kTasks; ++i) pipeline.submit(task(i, "ok"));
  waits.publish(pipeline);
  const std::vector<BenchResult> results = run_all(pipeline, kTasks);
  ASSERT_EQ(results.size(), static_cast<std::size_t>(kTasks));
  std::string all;
  for (const std::string &event : log.events()) all += event + "; ";
  std::map<std::int64_t, Measurement> by_sequence;
  for (const BenchResult &result : results) by_sequence[result.sequence] = result.measurement;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(by_sequence[i].status, Status::ok) << "c" << i << ": " << all;
  EXPECT_EQ(by_sequence[3].status, Status::runtime_error) << "a set-up that fails alone is answered: " << all;
  EXPECT_NE(by_sequence[3].reason.find("out of memory"), std::string::npos) << by_sequence[3].reason;

  // c1: failed beside c0, never went; made again after c0 ended, before c2 went.
  ASSERT_GE(log.at("set-up failed c1#1"), 0) << all;
  EXPECT_LT(log.at("calibrated c0#1"), log.at("set-up failed c1#1")) << all;
  EXPECT_EQ(log.at("go c1#1"), -1) << "a run whose set-up failed never goes: " << all;
  EXPECT_LT(log.at("ended c0#1"), log.at("prepare c1#2")) << "set up again alone: " << all;
  EXPECT_LT(log.at("ready c1#2"), log.at("go c1#2")) << all;
  EXPECT_LT(log.at("finish c1#2"), log.at("go c2#1")) << "it keeps its place: " << all;
  // c3: failed beside c2, made again alone, failed again: answered, not made a third time.
  EXPECT_LT(log.at("ended c2#1"), log.at("prepare c3#2")) << all;
  EXPECT_GE(log.at("go c3#2"), 0) << all;
  EXPECT_EQ(log.at("prepare c3#3"), -1) << all;
  EXPECT_EQ(pipeline.setups_made_again(), 2);
}

TEST_F(GpuTaskPipelineTest, ChildrenStartedAheadLiveUntilTheirTurnEnds) {
  BenchOptions options;
  options.work_root = root_;
  Scorer scorer(options, std::make_unique<SlowCompiler>(0ms), std::make_unique<TimedRunner>(0ms));
  GpuTaskPipeline pipeline(
      scorer, 2, [](const BenchTask &t, Measurement m) { return BenchResult{t.sequence, std::move(m), 1, "h", "gpu"}; },
      [](const BenchTask &, const Measurement &) { return true; },
      [](PreparedTask &) -> std::unique_ptr<StagedRun> { return std::make_unique<ShellStagedRun>(); });
  for (int i = 0; i < 6; ++i) pipeline.submit(task(i, "ok"));
  const std::vector<BenchResult> results = run_all(pipeline, 6);
  ASSERT_EQ(results.size(), 6u);
  for (const BenchResult &result : results)
    EXPECT_EQ(result.measurement.status, Status::ok) << result.measurement.reason;
}

TEST_F(GpuTaskPipelineTest, ARefusedTaskDoesNotWaitForTheGpu) {
  BenchOptions options;
  options.work_root = root_;
  Scorer scorer(options, std::make_unique<SlowCompiler>(1ms), std::make_unique<TimedRunner>(500ms));
  GpuTaskPipeline pipeline(
      scorer, 2, [](const BenchTask &t, Measurement m) { return BenchResult{t.sequence, std::move(m), 1, "h", "gpu"}; },
      [](const BenchTask &, const Measurement &) { return true; });
  pipeline.submit(task(1, "ok"));
  std::this_thread::sleep_for(50ms);
  pipeline.submit(task(2, "broken"));
  const double start = monotonic_seconds();
  std::vector<BenchResult> results;
  while (results.empty() && monotonic_seconds() - start < 5) {
    results = pipeline.take_results();
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].sequence, 2);
  EXPECT_EQ(results[0].measurement.status, Status::compile_error);
  EXPECT_LT(monotonic_seconds() - start, 0.3);
  EXPECT_EQ(run_all(pipeline, 1).size(), 1u);
}

TEST_F(GpuTaskPipelineTest, ALostGpuStopsTheRuns) {
  BenchOptions options;
  options.work_root = root_;
  Scorer scorer(options, std::make_unique<SlowCompiler>(1ms), std::make_unique<TimedRunner>(1ms));
  GpuTaskPipeline pipeline(
      scorer, 1, [](const BenchTask &t, Measurement m) { return BenchResult{t.sequence, std::move(m), 1, "h", "gpu"}; },
      [](const BenchTask &, const Measurement &m) { return m.status == Status::ok; });
  pipeline.submit(task(1, "crash"));
  const std::vector<BenchResult> first = run_all(pipeline, 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(pipeline.gpu_lost());
  pipeline.submit(task(2, "ok"));
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(pipeline.take_results().empty()) << "nothing runs on a lost GPU";
}

}  // namespace
}  // namespace hpcreward
