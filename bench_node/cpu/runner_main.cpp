// hpcreward-runner: the measurer of one candidate.
//
// Started by hpcreward-bench with fork+execv inside its sandbox (own process group, rlimits,
// private directory, deadline). It reads the rank's token from --token-fd, then starts
// hpcreward-executor, the process the candidate is loaded and called in (executor_process.hpp),
// and runs the harness against it: inputs, checks, clocks, the verdict and the token stay in
// this process, which no candidate code runs in. It writes exactly one JSON object
// {"token", "measurement"} to --result-fd and exits 0 (runner_frame.hpp, the frame it shares
// with hpcreward-gpu-runner).
#include <fcntl.h>

#include <filesystem>
#include <string>

#include "bench_node/cpu/executor_process.hpp"
#include "bench_node/cpu/forced_switches.hpp"
#include "bench_node/cpu/harness.hpp"
#include "bench_node/cpu/runner_frame.hpp"
#include "bench_node/process/progress_marks.hpp"

namespace hpcreward {
namespace {

// hpcreward-executor, next to this program.
std::string executor_program() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "hpcreward-executor").string();
}

template <typename T>
Measurement measure(const RunnerArgs &args, const HarnessConfig &config) {
  const ExecutorOptions options{.program = executor_program(),
                                .object = args.object_path,
                                .element_bytes = sizeof(T),
                                .batched = args.layout.batched,
                                .threads = args.threads};
  auto with = [&](int openmp_threads, std::size_t operand_bytes) {
    ExecutorOptions these = options;
    these.openmp_threads = openmp_threads;
    these.operand_bytes = operand_bytes;
    return these;
  };
  if (args.check_threads == 0 || !args.threads) {
    ExecutorProcess executor(with(0, harness_operand_bytes<T>(config)));
    if (Verdict verdict = executor.start(); !verdict.ok()) return failed_measurement(verdict);
    return run_harness<T>(executor, config);
  }
  // A larger OpenMP team for the full checks than the share the timed calls keep: an executor
  // each, so that each team is started and placed before its filter (sandbox/openmp_team.hpp).
  ExecutorOptions check_options = with(args.check_threads, harness_check_bytes<T>(config));
  check_options.forced_switches_us = kForcedSwitchPeriodUs;
  ExecutorProcess checks(check_options);
  if (Verdict verdict = checks.start(); !verdict.ok()) return failed_measurement(verdict);
  ExecutorProcess timed(with(0, harness_timed_bytes<T>(config)));
  if (Verdict verdict = timed.start(); !verdict.ok()) return failed_measurement(verdict);
  return run_harness<T>(checks, timed, config);
}

Measurement run_candidate(const RunnerArgs &args) {
  if (args.precision == Precision::f16 || args.precision == Precision::bf16)  // CUDA problems (GPU ranks)
    return failed_measurement(Status::format_error, std::string(to_string(args.precision)) +
                                                        " problems run on GPU ranks, not in hpcreward-runner");
  HarnessConfig config;
  config.layout = args.layout;
  config.nominal = args.nominal;
  config.check_shapes = args.check_shapes;
  config.tolerance = args.tolerance;
  config.timing = args.timing;
  // A mark must never block the harness: a full pipe drops it (the rank reads it as silence).
  if (args.progress_fd >= 0) ::fcntl(args.progress_fd, F_SETFL, ::fcntl(args.progress_fd, F_GETFL) | O_NONBLOCK);
  ProgressMarks progress(args.progress_fd);
  config.progress = &progress;
  // The executor inherits none of these (executor_process.cpp closes every descriptor past
  // its region's), but a stray descriptor must never reach a later child either.
  for (int fd : {args.result_fd, args.progress_fd})
    if (fd >= 0) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return args.precision == Precision::f64 ? measure<double>(args, config) : measure<float>(args, config);
}

}  // namespace
}  // namespace hpcreward

int main(int argc, char **argv) {
  return hpcreward::run_measurer(argc, argv, {"hpcreward-runner", "", &hpcreward::run_candidate});
}
