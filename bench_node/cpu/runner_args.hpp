#pragma once
// The runner child's command line: what the rank passes to hpcreward-runner, and how the
// runner reads it back. Both directions live here so they cannot drift apart.
#include <cstdint>
#include <string>
#include <vector>

#include "bench_node/measure/timing_options.hpp"
#include "common/problem.hpp"

namespace hpcreward {

struct RunnerArgs {
  std::string object_path;  // the candidate's shared object
  Precision precision = Precision::f64;
  Layout layout;
  Shape nominal;
  std::vector<Shape> check_shapes;
  double tolerance = 0;
  // GPU f16 problems that allow fp16 accumulation (the timed residual bound's own scale).
  Accumulation accumulation = Accumulation::f32;
  TimingOptions timing;
  int result_fd = 3;  // the runner writes its one result object here
  int token_fd = 4;   // and reads the rank's token from here first
  bool gated = false;  // GPU: started ahead of its turn (bench_node/gpu/start_gate.hpp)
  // CPU: whether the candidate may start threads (a stage compiled for OpenMP); without, the
  // executor's filter kills every new thread (sandbox/seccomp_filter.hpp).
  bool threads = true;
  // CPU, OpenMP stages: the OpenMP team of the full checks, run in an executor of their own so
  // that a race shows on a rank of few cores (check_threads_for); the warm-up and timed calls
  // keep the rank's share (OMP_NUM_THREADS). 0: the checks run in the timed calls' executor.
  int check_threads = 0;
  int progress_fd = -1;  // marks progress here before calls into the candidate (progress_marks.hpp); -1: none
  // The GPU runner only (hpcreward-gpu-runner reads the same command line); 0: unused.
  double element_tolerance = 0;   // Problem::element_tolerance
  std::uint64_t ring_bytes = 0;   // device memory for the timing ring
  std::uint64_t l2_bytes = 0;     // the device's L2 size (the flush writes twice this)
};

// What every runner (CPU and GPU) is told of a task: its object, problem and timing.
RunnerArgs runner_args_for(const std::string &object_path, const Problem &problem, const TimingOptions &timing);

// Whether a stage compiled with these flags offers threads: OpenMP (-fopenmp) or POSIX threads
// (-pthread). -fopenmp-simd starts none.
bool compiler_flags_offer_threads(const std::vector<std::string> &flags);

// The full checks of an OpenMP stage run with at least this many threads, whatever the rank's
// share: an unsynchronized update only loses values when threads interleave. More threads than
// CPUs is fine for checks, which are untimed; they stay on the share's CPUs.
inline constexpr int kFewestCheckThreads = 4;

// RunnerArgs::check_threads for a rank whose candidates time with `share` OpenMP threads, in a
// stage compiled with `flags`: kFewestCheckThreads where that is more than the share and the
// stage compiles OpenMP, else 0 (the checks run as the timed calls do).
int check_threads_for(int share, const std::vector<std::string> &flags);

// Arguments after the program name.
std::vector<std::string> to_arguments(const RunnerArgs &args);

// Throws std::invalid_argument (or a Boost.Program_options error) on a bad command line.
RunnerArgs parse_runner_args(int argc, const char *const *argv);
std::string runner_usage();

}  // namespace hpcreward
