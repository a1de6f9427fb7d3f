#include "bench_node/cpu/run_time_limit.hpp"

#include <algorithm>

#include "bench_node/cpu/harness.hpp"
#include "bench_node/cpu/runner_args.hpp"
#include "common/number_text.hpp"

namespace hpcreward {
namespace {

// " x 16 (...)" where the checks' calls get more time than the timed ones, else "".
std::string checks_slowdown_text(const RunTimeLimitRule &rule) {
  if (!(rule.checks_slowdown > 1)) return "";
  return " x " + number_text(rule.checks_slowdown) + " (the checks' OpenMP team of " +
         std::to_string(kFewestCheckThreads) + " threads with forced switches outnumbers the rank's CPUs)";
}

}  // namespace

RunTimeLimit run_time_limit(const Problem &problem, const TimingOptions &timing,
                            const RunTimeLimitRule &rule) {
  if (!(rule.factor > 0) || !(rule.reference_gflops > 0))
    return {rule.cap_s, rule.factor > 0 ? "--run-timeout (the rank's peak rate was not measured)"
                                        : "--run-timeout (--time-limit-factor 0)"};
  double checks = kVerifyCallsPerShape * problem.nominal.flops();
  for (const Shape &shape : problem.check_shapes) checks += kVerifyCallsPerShape * shape.flops();
  // The overrunning warm-up and timed calls, and the checks at their slowdown.
  const double flops = 2 * problem.nominal.flops() + rule.checks_slowdown * checks;
  const double reference_s = flops / (rule.reference_gflops * 1e9);
  const double derived_s =
      kRunnerStartAllowanceS + timing.warmup_s + timing.time_cap_s + (rule.factor + 1) * reference_s;
  const double seconds = std::min(rule.cap_s, std::max(rule.floor_s, derived_s));
  std::string basis = number_text(kRunnerStartAllowanceS) + " s start + " + number_text(timing.warmup_s) +
                      " s warm-up + " + number_text(timing.time_cap_s) + " s timing + (--time-limit-factor " +
                      number_text(rule.factor) + " + 1) x " + number_text(reference_s, 3) + " s" +
                      " (the full checks" + checks_slowdown_text(rule) + " and the calls past the loops' bounds at the rank's " +
                      number_text(rule.reference_gflops, 3) + " GFLOPS per core) = " +
                      number_text(derived_s, 3) + " s";
  if (seconds > derived_s) basis += ", raised to the floor --time-limit-floor-s " + number_text(rule.floor_s);
  if (seconds < derived_s) basis += ", capped by --run-timeout " + number_text(rule.cap_s);
  return {seconds, basis};
}

RunTimeLimit call_silence_limit(const Problem &problem, const RunTimeLimitRule &rule) {
  if (!(rule.factor > 0) || !(rule.reference_gflops > 0)) return {0, "no watchdog (the run's limit is not derived)"};
  double largest = problem.nominal.flops();
  for (const Shape &shape : problem.check_shapes) largest = std::max(largest, shape.flops());
  const double call_s = largest / (rule.reference_gflops * 1e9);
  const double per_call_s = std::max(kCallFloorS, (rule.factor + 1) * call_s * rule.checks_slowdown);
  const double seconds = kRunnerStartAllowanceS + per_call_s;
  std::string basis = number_text(kRunnerStartAllowanceS) + " s start + the larger of " + number_text(kCallFloorS) +
                      " s and (--time-limit-factor " + number_text(rule.factor) + " + 1) x " +
                      number_text(call_s, 3) + " s (the largest call at the rank's " +
                      number_text(rule.reference_gflops, 3) + " GFLOPS per core)" + checks_slowdown_text(rule) +
                      " = " + number_text(seconds, 3) + " s without progress";
  return {seconds, basis};
}

}  // namespace hpcreward
