// The scoring pipeline with fake compiler, runner and checks (no processes).
#include "bench_node/rank/scorer.hpp"

#include <unistd.h>

#include <stdexcept>

#include <gtest/gtest.h>

#include "bench_node/process/work_dir.hpp"

namespace hpcreward {
namespace {

struct Log {
  std::vector<std::string> events;
  std::filesystem::path directory;
};

class FakeCompiler : public Compiler {
 public:
  FakeCompiler(Log &log, Verdict verdict) : log_(log), verdict_(std::move(verdict)) {}
  CompileOutcome compile(const CompileRequest &request) override {
    log_.events.push_back("compile");
    log_.directory = request.directory;
    EXPECT_TRUE(std::filesystem::is_directory(request.directory));
    CompileOutcome outcome;
    outcome.verdict = verdict_;
    outcome.seconds = 0.25;
    outcome.object = request.directory / "cand.so";
    return outcome;
  }

 private:
  Log &log_;
  Verdict verdict_;
};

class FakeRunner : public CandidateRunner {
 public:
  FakeRunner(Log &log, bool throws, Status status = Status::ok)
      : log_(log), throws_(throws), status_(status) {}
  Measurement run(const RunRequest &request) override {
    log_.events.push_back("run");
    EXPECT_EQ(request.task->candidate_id, "c1");
    if (throws_) throw std::runtime_error("disk on fire");
    Measurement m;
    m.status = status_;
    m.gflops = 1.5;
    m.verify_s = 0.1;
    m.time_s = 0.2;
    return m;
  }

 private:
  Log &log_;
  bool throws_;
  Status status_;
};

class FakeCheck : public CandidateCheck {
 public:
  FakeCheck(Log &log, bool reject_source, bool reject_object)
      : log_(log), reject_source_(reject_source), reject_object_(reject_object) {}
  std::string_view name() const override { return "fake"; }
  Verdict check_source(const BenchTask &) override {
    log_.events.push_back("check_source");
    if (reject_source_) return {Status::forbidden, "forbidden header"};
    return {};
  }
  Verdict check_object(const BenchTask &, const std::filesystem::path &) override {
    log_.events.push_back("check_object");
    if (reject_object_) return {Status::forbidden, "forbidden symbol"};
    return {};
  }

 private:
  Log &log_;
  bool reject_source_, reject_object_;
};

class FakeTechniqueStep : public TechniqueStep {
 public:
  FakeTechniqueStep(Log &log, Verdict verdict) : log_(log), verdict_(std::move(verdict)) {}
  TechniqueAssessment assess(const BenchTask &, const std::filesystem::path &object) override {
    log_.events.push_back("techniques");
    EXPECT_EQ(object.filename(), "cand.so");
    return {summary(), verdict_};
  }
  static TechniqueSummary summary() {
    TechniqueSummary s;
    s.detected = true;
    s.techniques = {"blocking"};
    s.loop_order = "ikj";
    s.tile_sizes = {64, 32};
    s.evidence = "tile loop over ii at line 3";
    return s;
  }

 private:
  Log &log_;
  Verdict verdict_;
};

class ScorerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options.work_root = std::filesystem::path(::testing::TempDir()) /
                        ("hpcreward-scorer-test-" + std::to_string(::getpid()));
    task.candidate_id = "c1";
    task.sequence = 7;
  }
  void TearDown() override { remove_tree(options.work_root); }
  Scorer make(Verdict compile = {}, bool runner_throws = false, Status runs_as = Status::ok) {
    return Scorer(options, std::make_unique<FakeCompiler>(log, compile),
                  std::make_unique<FakeRunner>(log, runner_throws, runs_as));
  }
  BenchOptions options;
  BenchTask task;
  Log log;
};

TEST_F(ScorerTest, CompileThenRunFillsCompileTimeAndCleansUp) {
  Scorer scorer = make();
  scorer.add_check(std::make_unique<FakeCheck>(log, false, false));
  const Measurement m = scorer.score(task);
  EXPECT_EQ(m.status, Status::ok);
  // The build phase's own wall clock (checks, compiler, audit), not the compiler's claim.
  EXPECT_GT(m.compile_s, 0.0);
  EXPECT_LT(m.compile_s, 0.25);
  EXPECT_EQ(m.verify_s, 0.1);
  EXPECT_EQ(log.events, (std::vector<std::string>{"check_source", "compile", "check_object", "run"}));
  EXPECT_NE(log.directory.filename().string().find("cand-7-"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(log.directory));
  // No technique step: nothing detected, nothing decided.
  EXPECT_FALSE(m.techniques.detected);
}

TEST_F(ScorerTest, TechniqueStepRunsAfterTheObjectChecksAndItsSummaryReachesEveryRunStatus) {
  for (Status status : {Status::ok, Status::wrong_answer, Status::runtime_error, Status::timeout,
                        Status::forbidden}) {
    log.events.clear();
    Scorer scorer = make({}, false, status);
    scorer.add_check(std::make_unique<FakeCheck>(log, false, false));
    scorer.set_technique_step(std::make_unique<FakeTechniqueStep>(log, Verdict{}));
    const Measurement m = scorer.score(task);
    EXPECT_EQ(m.status, status);
    EXPECT_EQ(m.techniques, FakeTechniqueStep::summary()) << to_string(status);
    EXPECT_EQ(log.events, (std::vector<std::string>{"check_source", "compile", "check_object",
                                                    "techniques", "run"}));
  }
}

TEST_F(ScorerTest, TechniqueStepRefusalStopsBeforeRunningAndKeepsTheSummary) {
  Scorer scorer = make();
  scorer.set_technique_step(std::make_unique<FakeTechniqueStep>(
      log, Verdict{Status::constraint_violation, "stage o3 does not allow blocking"}));
  const Measurement m = scorer.score(task);
  EXPECT_EQ(m.status, Status::constraint_violation);
  EXPECT_EQ(m.reason, "stage o3 does not allow blocking");
  EXPECT_EQ(m.techniques, FakeTechniqueStep::summary());
  EXPECT_GT(m.compile_s, 0.0);
  EXPECT_EQ(log.events, (std::vector<std::string>{"compile", "techniques"}));
  EXPECT_FALSE(std::filesystem::exists(log.directory));
}

TEST_F(ScorerTest, ObjectCheckRefusalSkipsTheTechniqueStep) {
  Scorer scorer = make();
  scorer.add_check(std::make_unique<FakeCheck>(log, false, true));
  scorer.set_technique_step(std::make_unique<FakeTechniqueStep>(log, Verdict{}));
  const Measurement m = scorer.score(task);
  EXPECT_EQ(m.status, Status::forbidden);
  EXPECT_FALSE(m.techniques.detected);
  EXPECT_EQ(log.events, (std::vector<std::string>{"check_source", "compile", "check_object"}));
}

TEST_F(ScorerTest, RelativeWorkRootIsMadeAbsolute) {
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::create_directories(options.work_root);
  std::filesystem::current_path(options.work_root);
  options.work_root = "relative-root";
  Scorer scorer = make();
  scorer.score(task);
  std::filesystem::current_path(previous);
  EXPECT_TRUE(log.directory.is_absolute()) << log.directory;
  options.work_root = log.directory.parent_path().parent_path();  // for TearDown
}

TEST_F(ScorerTest, KeepWorkdirKeepsIt) {
  options.keep_workdir = true;
  Scorer scorer = make();
  scorer.score(task);
  EXPECT_TRUE(std::filesystem::is_directory(log.directory));
}

TEST_F(ScorerTest, SourceCheckStopsBeforeCompiling) {
  Scorer scorer = make();
  scorer.add_check(std::make_unique<FakeCheck>(log, true, false));
  const Measurement m = scorer.score(task);
  EXPECT_EQ(m.status, Status::forbidden);
  EXPECT_EQ(m.reason, "forbidden header");
  EXPECT_EQ(log.events, (std::vector<std::string>{"check_source"}));
}

TEST_F(ScorerTest, ObjectCheckStopsBeforeRunning) {
  Scorer scorer = make();
  scorer.add_check(std::make_unique<FakeCheck>(log, false, true));
  const Measurement m = scorer.score(task);
  EXPECT_EQ(m.status, Status::forbidden);
  EXPECT_GT(m.compile_s, 0.0);
  EXPECT_EQ(log.events, (std::vector<std::string>{"check_source", "compile", "check_object"}));
}

TEST_F(ScorerTest, CompileErrorStops) {
  Scorer scorer = make({Status::compile_error, "cand.c:1: error: nope"});
  const Measurement m = scorer.score(task);
  EXPECT_EQ(m.status, Status::compile_error);
  EXPECT_GT(m.compile_s, 0.0);  // the build phase's own wall clock, not the compiler's claim
  EXPECT_EQ(log.events, (std::vector<std::string>{"compile"}));
}

TEST_F(ScorerTest, ExceptionsBecomeRuntimeErrors) {
  Scorer scorer = make({}, true);
  const Measurement m = scorer.score(task);
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_NE(m.reason.find("disk on fire"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(log.directory));
}

}  // namespace
}  // namespace hpcreward
