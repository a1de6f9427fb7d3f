#pragma once
// Scoring one task: private work directory -> source checks -> compile -> object checks
// -> technique step (when set) -> sandboxed run -> Measurement. Every failure is a status
// with a reason; nothing a candidate does (or an internal error while scoring it) escapes
// as an exception. The technique step's summary goes into the Measurement of every
// candidate that reached it: refused by the stage's rules, or run (whatever the run's status).
#include <memory>
#include <optional>
#include <vector>

#include "bench_node/rank/bench_options.hpp"
#include "bench_node/checks/candidate_check.hpp"
#include "bench_node/rank/candidate_runner.hpp"
#include "bench_node/checks/compiler.hpp"
#include "bench_node/process/work_dir.hpp"
#include "common/messages.hpp"

namespace hpcreward {

// A task after everything that needs no run: refused (the Measurement is final), or compiled,
// checked and assessed, its object in its private directory, ready for the runner. GPU ranks
// prepare the next candidates on worker threads while the GPU times another.
struct PreparedTask {
  BenchTask task;
  std::optional<Measurement> refused;
  std::unique_ptr<WorkDir> directory;
  std::filesystem::path object;
  TechniqueSummary techniques;
  double compile_s = 0;
};

class Scorer {
 public:
  Scorer(BenchOptions options, std::unique_ptr<Compiler> compiler,
         std::unique_ptr<CandidateRunner> runner);
  // GccCompiler and SandboxedRunner configured from `options`.
  explicit Scorer(const BenchOptions &options);

  void add_check(std::unique_ptr<CandidateCheck> check);
  // Without one (the default), Measurement::techniques stays undetected and the task's
  // allowed and required techniques are not checked.
  void set_technique_step(std::unique_ptr<TechniqueStep> step);
  Measurement score(const BenchTask &task);  // never throws: prepare, then run
  // Checks, compile, object checks, technique step. Never throws; safe to call from several
  // threads at once when the compiler and checks are (every default one is).
  PreparedTask prepare(const BenchTask &task);
  // The runner on a prepared task (or its refusal as it stands). Never throws.
  Measurement run(PreparedTask &prepared);
  // What run() adds to the runner's measurement (compile time, techniques), and the task's
  // directory removed; for callers that run the task themselves (the GPU pipeline's staged runs).
  Measurement complete(PreparedTask &prepared, Measurement measurement);

 private:
  void prepare_unguarded(PreparedTask &prepared);
  BenchOptions options_;
  std::unique_ptr<Compiler> compiler_;
  std::unique_ptr<CandidateRunner> runner_;
  std::vector<std::unique_ptr<CandidateCheck>> checks_;
  std::unique_ptr<TechniqueStep> technique_step_;
};

// How the rank's compiler runs (also what the object audit's baselines need).
GccOptions gcc_options(const BenchOptions &options);

// One task with the default compiler and sandbox.
Measurement score_task(const BenchTask &task, const BenchOptions &options);

}  // namespace hpcreward
