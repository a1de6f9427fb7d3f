#pragma once
// Running a compiled candidate: `CandidateRunner` is the boundary; SandboxedRunner starts
// hpcreward-runner in a limited child process (child_process.hpp) and classifies what
// happened (classify.hpp).
#include <filesystem>
#include <string>

#include "bench_node/process/child_process.hpp"
#include "bench_node/cpu/run_time_limit.hpp"
#include "bench_node/measure/timing_options.hpp"
#include "common/messages.hpp"

namespace hpcreward {

struct RunRequest {
  std::filesystem::path object;     // the candidate's shared object
  std::filesystem::path directory;  // private work directory (the child's cwd)
  const BenchTask *task = nullptr;  // problem, seed
};

class CandidateRunner {
 public:
  virtual ~CandidateRunner() = default;
  // The measurement (verify_s, time_s filled; compile_s not). Never throws for anything
  // the candidate does.
  virtual Measurement run(const RunRequest &request) = 0;
};

struct SandboxOptions {
  std::string runner;                          // hpcreward-runner
  double timeout_s = 60;                       // wall clock: the cap of every run's limit
  std::uint64_t memory_bytes = 4ULL << 30;     // RLIMIT_AS
  TimingOptions timing;
  bool pin_threads = true;  // OMP_PROC_BIND / OMP_PLACES (see BenchOptions)
  int threads = 0;  // OMP_NUM_THREADS / OPENBLAS_NUM_THREADS (see BenchOptions); 0: one per CPU
  // Scales each run's wall-clock limit to its problem (run_time_limit.hpp); factor 0 or
  // no reference rate: every run gets timeout_s. Its cap_s is timeout_s, whatever it says.
  RunTimeLimitRule time_limit;
};

class SandboxedRunner : public CandidateRunner {
 public:
  explicit SandboxedRunner(SandboxOptions options) : options_(std::move(options)) {}
  Measurement run(const RunRequest &request) override;
  // The child to start for `request` with `token` (exposed for tests).
  ChildSpec child_spec(const RunRequest &request, const std::string &token) const;
  // The wall-clock limit of `task`'s run: at most timeout_s.
  RunTimeLimit time_limit(const BenchTask &task) const;
  // How long the runner may go without marking progress (one call into the candidate:
  // call_silence_limit); 0 when there is no watchdog or the run's limit would come first.
  RunTimeLimit silence_limit(const BenchTask &task) const;
  // RLIMIT_CPU under a wall-clock limit: that limit times the CPUs it may use, plus slack.
  static double cpu_limit_s(double wall_limit_s);

 private:
  int share() const;  // the OpenMP team of the timed calls: --threads, else the rank's CPUs
  // RunnerArgs::check_threads of `task`'s run: 0 where the checks run in the timed executor.
  int check_threads(const BenchTask &task) const;
  // The options' rule for `task`, capped by timeout_s; the checks' slowdown where their team
  // outnumbers the share (run_time_limit.hpp).
  RunTimeLimitRule limit_rule(const BenchTask &task) const;
  SandboxOptions options_;
};

}  // namespace hpcreward
