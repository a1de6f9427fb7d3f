// The rank's side of measurers that serve one candidate after another
// (GpuSandboxedRunner::start with serving_measurers), against a stand-in that speaks the
// measurer's protocol without CUDA (fake_serving_measurer.cpp): which measurer serves which
// run, and that a run that went wrong never shares its measurer with the next one.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "bench_node/gpu/gpu_child.hpp"
#include "common/problem_catalog.hpp"

namespace hpcreward {
namespace {

struct Served {
  Measurement measurement;
  std::string pid;  // of the measurer that served it
};

class ServingMeasurerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.runner = FAKE_SERVING_MEASURER;
    options_.timeout_s = 60;
    task_.problem = *find_problem("cuda-sgemm-1024");
    directory_ = std::filesystem::temp_directory_path() /
                 ("hpcreward-serving-test-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::unique_ptr<StagedRun> start(GpuSandboxedRunner &runner, const std::string &behaviour) {
    return runner.start({directory_ / behaviour, directory_, &task_});
  }
  static Served finish(StagedRun &run) {
    Served served{run.finish(), ""};
    const std::string &reason = served.measurement.reason;
    if (reason.rfind("pid ", 0) == 0) served.pid = reason.substr(4, reason.find(' ', 4) - 4);
    return served;
  }
  // One run alone, through every stage.
  Served run_alone(GpuSandboxedRunner &runner, const std::string &behaviour) {
    std::unique_ptr<StagedRun> run = start(runner, behaviour);
    run->prepare();
    run->await_ready();
    run->go();
    run->quiet();
    run->await_calibrated();
    run->allow_timing();
    const Served served = finish(*run);
    run->await_ended();
    return served;
  }

  // A run of `behaviour` between two good ones: its verdict; the good run after it is on
  // another measurer than the one before it.
  Served between_good_runs(GpuSandboxedRunner &runner, const std::string &behaviour) {
    const Served first = run_alone(runner, "ok");
    const Served gone_wrong = run_alone(runner, behaviour);
    const Served after = run_alone(runner, "ok");
    EXPECT_EQ(after.measurement.status, Status::ok) << after.measurement.reason;
    EXPECT_NE(after.pid, first.pid) << "a run that went wrong never shares its measurer with the next";
    return gone_wrong;
  }

  GpuChildOptions options_;
  BenchTask task_;
  std::filesystem::path directory_;
};

TEST_F(ServingMeasurerTest, TwoMeasurersTakeTurnsAndKeepServing) {
  GpuSandboxedRunner runner(options_);
  std::vector<std::string> pids;
  // As the GPU pipeline orders them: the next run starts and prepares while the current one runs.
  std::unique_ptr<StagedRun> previous, current = start(runner, "ok");
  current->prepare();
  current->await_ready();
  for (int i = 0; i < 6; ++i) {
    current->go();
    if (previous) previous->await_ended();
    current->quiet();
    std::unique_ptr<StagedRun> next = start(runner, "ok");
    current->await_calibrated();
    next->prepare();
    next->await_ready();
    current->allow_timing();
    const Served served = finish(*current);
    ASSERT_EQ(served.measurement.status, Status::ok) << served.measurement.reason;
    EXPECT_NE(served.measurement.reason.find("in " + directory_.string()), std::string::npos)
        << "the run's directory goes with its task: " << served.measurement.reason;
    pids.push_back(served.pid);
    previous = std::move(current);
    current = std::move(next);
  }
  current->go();
  previous->await_ended();
  current->quiet();
  current->await_calibrated();
  current->allow_timing();
  pids.push_back(finish(*current).pid);
  for (std::size_t i = 2; i < pids.size(); ++i)
    EXPECT_EQ(pids[i], pids[i - 2]) << "run " << i << " is served by the measurer that served run " << i - 2;
  EXPECT_NE(pids[0], pids[1]) << "the next run prepares on the other measurer";
}

TEST_F(ServingMeasurerTest, ARunHasEndedOnlyOnceItsMeasurerSaysSo) {
  GpuSandboxedRunner runner(options_);
  // The result comes before the measurer's end (its executor's, in the real one, 0.3 s later
  // in the stand-in); run_alone returns after await_ended(), which the next run's quiet() follows.
  ASSERT_EQ(run_alone(runner, "linger").measurement.status, Status::ok);
  EXPECT_TRUE(std::filesystem::exists(directory_ / "ended"));
}

TEST_F(ServingMeasurerTest, AWrongAnswerKeepsTheMeasurer) {
  GpuSandboxedRunner runner(options_);
  const Served wrong = run_alone(runner, "wrong");
  EXPECT_EQ(wrong.measurement.status, Status::wrong_answer);
  EXPECT_EQ(run_alone(runner, "ok").pid, wrong.pid);
}

TEST_F(ServingMeasurerTest, ARunThatEndsBeforeItsTimedCallsLeavesItsMeasurerReady) {
  GpuSandboxedRunner runner(options_);
  // Its 't' arrives after its result: the measurer must take it for a stray byte, not the end.
  const Served wrong = run_alone(runner, "wrong-early");
  EXPECT_EQ(wrong.measurement.status, Status::wrong_answer);
  const Served after = run_alone(runner, "ok");
  EXPECT_EQ(after.measurement.status, Status::ok) << after.measurement.reason;
  EXPECT_EQ(after.pid, wrong.pid);
}

TEST_F(ServingMeasurerTest, ARunThatEndsBeforeItsCalibrationRetiresItsMeasurer) {
  GpuSandboxedRunner runner(options_);
  const Served early = run_alone(runner, "early");  // await_calibrated returns on 'e', not at 60 s
  EXPECT_EQ(early.measurement.status, Status::runtime_error);
  const Served after = run_alone(runner, "ok");
  EXPECT_EQ(after.measurement.status, Status::ok);
  EXPECT_NE(after.pid, early.pid) << "a run that went wrong never shares its measurer with the next";
}

TEST_F(ServingMeasurerTest, AMeasurerThatDiesGetsAVerdictAndAFreshSuccessor) {
  GpuSandboxedRunner runner(options_);
  const Served died = between_good_runs(runner, "die");
  EXPECT_EQ(died.measurement.status, Status::runtime_error) << died.measurement.reason;
}

TEST_F(ServingMeasurerTest, AHungRunTimesOutAndItsMeasurerIsStopped) {
  options_.timeout_s = 1;
  GpuSandboxedRunner runner(options_);
  const Served hung = between_good_runs(runner, "hang");
  EXPECT_EQ(hung.measurement.status, Status::timeout) << hung.measurement.reason;
}

TEST_F(ServingMeasurerTest, AMeasurerIsRetiredAfterItsShareOfRuns) {
  GpuSandboxedRunner runner(options_);
  const std::string first = run_alone(runner, "ok").pid;
  for (int run = 2; run <= kRunsPerMeasurer; ++run) ASSERT_EQ(run_alone(runner, "ok").pid, first) << "run " << run;
  EXPECT_NE(run_alone(runner, "ok").pid, first);
}

// The pipeline sets such a run up again (gpu_task_pipeline.hpp): it must learn that the set-up
// failed, not wait out the run's time, and the run it drops must not leave its measurer serving.
TEST_F(ServingMeasurerTest, ASetUpThatFailsIsToldAndItsRunDroppedWithItsMeasurer) {
  GpuSandboxedRunner runner(options_);
  const std::string first = run_alone(runner, "ok").pid;
  {
    std::unique_ptr<StagedRun> failed = start(runner, "set-up-fails");
    failed->prepare();
    EXPECT_FALSE(failed->await_ready());
  }
  const Served after = run_alone(runner, "ok");
  EXPECT_EQ(after.measurement.status, Status::ok) << after.measurement.reason;
  EXPECT_NE(after.pid, first);
  std::unique_ptr<StagedRun> ready = start(runner, "ok");
  ready->prepare();
  EXPECT_TRUE(ready->await_ready());
}

TEST_F(ServingMeasurerTest, ARunDroppedUnfinishedStopsItsMeasurer) {
  GpuSandboxedRunner runner(options_);
  const std::string first = run_alone(runner, "ok").pid;
  {
    std::unique_ptr<StagedRun> dropped = start(runner, "ok");
    dropped->prepare();
    dropped->await_ready();
  }
  EXPECT_NE(run_alone(runner, "ok").pid, first);
}

}  // namespace
}  // namespace hpcreward
