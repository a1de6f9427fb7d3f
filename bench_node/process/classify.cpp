#include "bench_node/process/classify.hpp"

#include <signal.h>

#include <cmath>


#include "bench_node/process/result_envelope.hpp"
#include "common/number_text.hpp"

namespace hpcreward {

namespace {

// ": <first line of output>" when there is one.
std::string output_hint(const ChildOutcome &outcome) {
  const std::string line = first_line(outcome.output);
  return line.empty() ? std::string() : ": " + line;
}

}  // namespace

Verdict verdict_for_signal(int signal, bool over_cpu_limit, double cpu_limit_s, const std::string &hint) {
  // The seccomp filter ends a disallowed system call with SECCOMP_RET_KILL_PROCESS, which the
  // parent sees as death by SIGSYS (sandbox/seccomp_filter.cpp). Nothing else sends SIGSYS; a
  // candidate raising it on itself earns the same penalty.
  if (signal == SIGSYS)
    return {Status::forbidden, "forbidden: made a system call the sandbox does not allow (killed by SIGSYS)"};
  if (signal == SIGXCPU || (signal == SIGKILL && over_cpu_limit))
    return {Status::timeout, "exceeded the CPU time limit" +
                                 (cpu_limit_s > 0 ? " of " + seconds_text(cpu_limit_s) : std::string())};
  return {Status::runtime_error, "killed by signal " + describe_signal(signal) + hint};
}

Measurement classify_run(const ChildOutcome &outcome, const RunExpectations &expected) {
  if (!outcome.started)
    return failed_measurement(Status::runtime_error, "could not start the runner: " + outcome.start_error);
  if (outcome.timed_out)
    return failed_measurement(Status::timeout,
                   "exceeded the wall-clock limit of " + seconds_text(expected.deadline_s));
  if (outcome.went_silent)
    return failed_measurement(Status::timeout,
                   "a call into the candidate did not return within " +
                       seconds_text(expected.silence_limit_s) + " (the run's watchdog)");
  const bool over_cpu = expected.cpu_limit_s > 0 && outcome.cpu_s >= expected.cpu_limit_s;
  if (outcome.signaled) {
    const Verdict verdict = verdict_for_signal(outcome.signal, over_cpu, expected.cpu_limit_s, output_hint(outcome));
    return failed_measurement(verdict.status, verdict.reason);
  }
  if (outcome.exited && outcome.exit_code != 0)
    return failed_measurement(Status::runtime_error, "exited with code " + std::to_string(outcome.exit_code) +
                                              " without a result" + output_hint(outcome));
  if (outcome.result.empty())
    return failed_measurement(Status::runtime_error, "exited with code 0 without a result" + output_hint(outcome));
  if (outcome.result_overflow)
    return failed_measurement(Status::runtime_error, "malformed result from the runner (too large)");
  auto decoded = decode_result(outcome.result);
  // Only the runner holds the pipe (the executor gets neither it nor the token), and every
  // value it sends encodes: nothing says who wrote this, so no accusation, and no reward.
  if (!decoded) return failed_measurement(Status::runtime_error, "malformed result from the runner (not one envelope)");
  if (decoded->token != expected.token)
    return failed_measurement(Status::forbidden, "tampering detected: forged result on the result pipe");
  Measurement measurement = decoded->measurement;
  // The candidate's own process (the runner's executor) died: what it printed says why.
  if (measurement.status == Status::runtime_error &&
      (measurement.reason.starts_with("killed by signal") || measurement.reason.starts_with("exited with code")))
    measurement.reason += output_hint(outcome);
  // The runner's clock can't have counted more time than the child was alive.
  // Written so that a NaN or an infinity (which decode) fails every test.
  if (measurement.status == Status::ok &&
      (!(measurement.reps > 0) || !(measurement.min_s >= 0) || !(measurement.median_s > 0) ||
       !(measurement.min_s * measurement.reps <= outcome.wall_s) || !std::isfinite(measurement.median_s) ||
       !std::isfinite(measurement.gflops) || !(measurement.gflops >= 0)))
    return failed_measurement(Status::forbidden, "tampering detected: timings inconsistent with the wall clock");
  return measurement;
}

}  // namespace hpcreward
