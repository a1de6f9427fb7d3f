#pragma once
// The wall-clock limit of one CPU candidate's run (verification and timing), scaled to its
// problem: a hung candidate at dgemm-256 costs seconds, not the fixed --run-timeout.
//
//   limit = clamp(start + warmup_s + time_cap_s + (factor + 1) x t_ref, floor, cap)
//   t_ref = flops of the calls the harness makes beyond its time-bounded loops
//           / (the rank's per-core f64 ceiling: the higher of OpenBLAS dgemm and the FMA
//              units' throughput, measured at start, divided by its CPUs)
//
// Those calls: kVerifyCallsPerShape at the nominal and at every check shape (counted
// checks_slowdown times), plus one call that overruns the warm-up's bound and one that
// overruns the timing loop's (both loops end after the call that crosses their bound).
// `factor` x t_ref is the candidate's share, 1 x t_ref the harness's own OpenBLAS reference
// for the full checks. The per-core rate makes
// the limit independent of how many cores the rank has, and the ceiling (not OpenBLAS alone)
// of how well OpenBLAS was built for the CPU. The slowest candidates that deserve a reward
// (a naive -O0 triple loop, single-threaded) run far below that ceiling, so the factor is
// large (docs/reports/cpu-harness.md has the measured ratio). f32 problems use the f64
// rate: a naive loop is not faster in f32, so their limit is the more generous one.
#include <string>

#include "bench_node/measure/timing_options.hpp"
#include "common/problem.hpp"

namespace hpcreward {

struct RunTimeLimitRule {
  double factor = 0;            // --time-limit-factor; 0: every run gets cap_s
  double floor_s = 5;           // --time-limit-floor-s
  double cap_s = 60;            // --run-timeout
  double reference_gflops = 0;  // per-core f64 ceiling; 0 (not measured): cap_s
  // How much slower the full checks' calls may run than the timed ones: 1, or
  // kOversubscribedChecksSlowdown where the checks' OpenMP team outnumbers the rank's CPUs.
  double checks_slowdown = 1;
};

// The full checks of an OpenMP stage on a rank of fewer than 4 CPUs run a team of 4 threads
// with a thread switch forced every 100 us (runner_args.hpp's check_threads_for,
// forced_switches.hpp), so that a race shows. Each parallel region then costs a context switch
// per thread: a candidate with a region per innermost iteration (the generator's `kji` and
// `jki` orders, 65,536 regions a call at dgemm-256) took 5 to 7 s a check call on one or two
// CPUs against 0.14 s a timed call with the rank's own team, 40 to 50 times longer
// (docs/reports/cpu-harness.md). The checks' calls, and the watchdog's wait for any call of
// such a run, get this many times their share: the slowdown is the harness's, not the
// candidate's. A hung call costs that much longer to end, still within --run-timeout.
inline constexpr double kOversubscribedChecksSlowdown = 16;

// Process start, dlopen, the seccomp filter and the harness's buffers, generously.
inline constexpr double kRunnerStartAllowanceS = 1;
// The least time one call into the candidate gets before the watchdog ends the run.
inline constexpr double kCallFloorS = 1;

struct RunTimeLimit {
  double seconds = 0;
  std::string basis;  // how `seconds` was derived and which option changes it (for timeout reasons)
};

RunTimeLimit run_time_limit(const Problem &problem, const TimingOptions &timing,
                            const RunTimeLimitRule &rule);

// The watchdog's silence limit (child_process.hpp, progress_marks.hpp): how long the runner may
// go without marking progress, that is how long one call into the candidate (with the
// harness's own checks around it) may take:
//
//   silence = start + max(kCallFloorS, (factor + 1) x t_call x checks_slowdown)
//   t_call  = flops of the largest call (nominal or check shape) / the per-core ceiling
//
// A candidate that hangs in a call is killed about `silence` after it began, not at the run's
// limit. Never above the run's limit (then it adds nothing); 0 (no watchdog) when the run's
// limit is not derived (factor 0, or the rank's peak rate not measured).
RunTimeLimit call_silence_limit(const Problem &problem, const RunTimeLimitRule &rule);

}  // namespace hpcreward
