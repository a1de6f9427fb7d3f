#include "bench_node/rank/candidate_runner.hpp"

#include <cmath>

#include "bench_node/process/classify.hpp"
#include "bench_node/process/cpu_affinity.hpp"
#include "bench_node/process/result_envelope.hpp"
#include "bench_node/cpu/runner_args.hpp"

namespace hpcreward {

double SandboxedRunner::cpu_limit_s(double wall_limit_s) {
  // CPU time adds up over threads: an OpenMP candidate on every CPU of the mask uses
  // timeout * cpus in timeout seconds, so scale; the wall-clock deadline is the real bound.
  return std::ceil(wall_limit_s * affinity_cpu_count()) + 5;
}

int SandboxedRunner::share() const { return options_.threads > 0 ? options_.threads : affinity_cpu_count(); }

int SandboxedRunner::check_threads(const BenchTask &task) const {
  if (!compiler_flags_offer_threads(task.compiler_flags)) return 0;  // one executor (runner_main.cpp)
  return check_threads_for(share(), task.compiler_flags);
}

RunTimeLimitRule SandboxedRunner::limit_rule(const BenchTask &task) const {
  RunTimeLimitRule rule = options_.time_limit;
  rule.cap_s = options_.timeout_s;
  if (check_threads(task) > 0) rule.checks_slowdown = kOversubscribedChecksSlowdown;
  return rule;
}

RunTimeLimit SandboxedRunner::time_limit(const BenchTask &task) const {
  return run_time_limit(task.problem, options_.timing, limit_rule(task));
}

RunTimeLimit SandboxedRunner::silence_limit(const BenchTask &task) const {
  RunTimeLimit silence = call_silence_limit(task.problem, limit_rule(task));
  if (silence.seconds >= time_limit(task).seconds) return {0, "no watchdog (the run's limit comes first)"};
  return silence;
}

ChildSpec SandboxedRunner::child_spec(const RunRequest &request, const std::string &token) const {
  const BenchTask &task = *request.task;
  RunnerArgs args = runner_args_for(request.object.string(), task.problem, options_.timing);
  args.threads = compiler_flags_offer_threads(task.compiler_flags);
  args.check_threads = check_threads(task);
  const RunTimeLimit silence = silence_limit(task);
  if (silence.seconds > 0) args.progress_fd = kChildProgressFd;

  ChildSpec spec;
  spec.program = options_.runner;
  spec.arguments = to_arguments(args);
  spec.environment = inherited_environment();
  const std::string threads = std::to_string(share());
  set_variable(spec.environment, "OMP_NUM_THREADS", threads, false);
  set_variable(spec.environment, "OPENBLAS_NUM_THREADS", threads, false);
  if (options_.pin_threads) {  // one thread per physical core of the rank, never two on SMT siblings
    set_variable(spec.environment, "OMP_PROC_BIND", "close", false);
    set_variable(spec.environment, "OMP_PLACES", "cores", false);
  }
  set_variable(spec.environment, "MALLOC_ARENA_MAX", "2", false);  // arenas eat RLIMIT_AS
  spec.working_directory = request.directory.string();
  spec.limits.address_space_bytes = options_.memory_bytes;
  const double wall_limit_s = time_limit(task).seconds;
  spec.limits.cpu_seconds = static_cast<std::uint64_t>(cpu_limit_s(wall_limit_s));
  // No RLIMIT_FSIZE here: the runner sizes its operand region (a memfd, which the limit counts)
  // and then gives the executor, where the candidate runs, a limit of 0 (executor_process.cpp).
  spec.limits.open_files = 64;
  spec.deadline_s = wall_limit_s;
  spec.output_limit = 4096;
  spec.result_pipe = true;
  spec.result_limit = 64 * 1024;
  spec.token = token;
  spec.progress_pipe = silence.seconds > 0;
  spec.silence_limit_s = silence.seconds;
  return spec;
}

Measurement SandboxedRunner::run(const RunRequest &request) {
  const std::string token = make_token();
  const ChildOutcome outcome = run_child(child_spec(request, token));
  const RunTimeLimit limit = time_limit(*request.task);
  const RunTimeLimit silence = silence_limit(*request.task);
  Measurement measurement =
      classify_run(outcome, {token, limit.seconds, cpu_limit_s(limit.seconds), silence.seconds});
  // Says where the limit came from, so a user knows which option to change.
  if (measurement.status == Status::timeout)
    measurement.reason += " (limit: " + (outcome.went_silent ? silence.basis : limit.basis) + ")";
  return measurement;
}

}  // namespace hpcreward
