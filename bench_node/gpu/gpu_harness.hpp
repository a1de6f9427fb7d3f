#pragma once
// Verifies and times one CUDA candidate from the GPU runner, the measurer (docs/design.md
// "Measuring honestly", docs/reward-integrity.md): the candidate runs in its own process and
// CUDA context (gpu_executor.hpp), which shares only the operand pool with the measurer.
// Every check reads the measurer's own copies: the pristine inputs, and C as copied out of the
// pool when the call's clock stopped.
//
// First the full checks' inputs and cuBLAS references are made and the executor's round trip
// is calibrated (before the candidate is loaded); then one full check against cuBLAS at the
// nominal shape and at every check shape; then warm-up and timed calls at the nominal shape over a ring of buffer sets,
// new values before every call, L2 flushed, every output checked (the row-wise residual
// check, residual_bound.hpp), every guard zone and input checked after every call.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "bench_node/cpu/runner_args.hpp"
#include "bench_node/gpu/start_gate.hpp"
#include "bench_node/measure/timing_options.hpp"
#include "common/messages.hpp"
#include "common/problem.hpp"

namespace hpcreward::gpu {

class Cublas;
class ExportedDeviceMemory;
class GpuExecutor;

struct GpuHarnessConfig {
  Precision precision = Precision::f64;
  Layout layout;
  Shape nominal;
  std::vector<Shape> check_shapes;
  double tolerance = 0;          // ||C - Cref||_F / ||Cref||_F (full checks)
  double element_tolerance = 0;  // |C - Cref|_ij / (|A||B|)_ij (full checks)
  Accumulation accumulation = Accumulation::f32;  // the problem's: the timed residual bound's scale
  // Timed outputs meet residual_bound.hpp; inputs, check vectors and guard patterns come from
  // the kernel's random source for each use (random_fill.hpp kernel_random_u64).
  TimingOptions timing;
  std::size_t ring_bytes = 8ULL << 30;  // device memory for the timing ring's buffer sets
  std::size_t l2_bytes = 50ULL << 20;   // the device's L2; the flush writes twice this
  // Benchmarks only (hpcreward-gpu-fidelity attributes differences with it); ranks keep it.
  bool flush_l2 = true;
  // Benchmarks only: every timed call's two clocks (gpu_executor.hpp), and the calibration.
  struct Trace {
    std::vector<double> window_s, event_s, prepare_s, call_s, finish_s;
    std::vector<double> activity_records;  // per call: CUPTI records behind event_s (0: CUDA events)
    double least_overhead_s = 0, high_overhead_s = 0;
  };
  Trace *trace = nullptr;
  // A staged run (start_gate.hpp). `quiet`: polled while the GPU warms up for the calibration,
  // whether the run before has ended. `calibrated`: told when the calibration is done.
  // `may_time`: polled between warm-up calls, whether the timed calls may start. closed: the
  // rank gave up on this run. Unset: straight through.
  std::function<GateWord()> quiet;
  std::function<void()> calibrated;
  std::function<GateWord()> may_time;
  // Told as each phase ends (the rank's report of where a run's time goes); unset: nothing.
  std::function<void(const char *phase)> phase_ended;
};

// What the runner's command line says of the problem and its timing (runner_args_for).
GpuHarnessConfig harness_config(const RunnerArgs &args);

// The operand pool `config` needs: the timing ring's buffer sets, or one set at the largest
// check shape.
std::size_t operand_pool_bytes(const GpuHarnessConfig &config);

// Calibrates `executor` (its pool already open), loads the candidate, verifies and times it.
// The Measurement: ok with timings, or the first failure. Throws CudaError for failures of
// the measurer's own CUDA calls.
Measurement run_gpu_harness(GpuExecutor &executor, ExportedDeviceMemory &pool, const GpuHarnessConfig &config,
                            Cublas &cublas);

// The first call of each cuBLAS kernel loads it (lazy module loading: 50 to 100 ms a kernel on an
// H200). Calls the GEMM the warm-up uses and the fp64 reference at every shape once, on
// scratch memory freed again, so that a measurer set up ahead of its turn has them loaded.
void load_gpu_code(Cublas &cublas, const GpuHarnessConfig &config);

// Whether a precision's inputs carry the exponent pattern fp16 cannot hold
// (bench_node/measure/input_values.hpp): f32 only; f64 and f16 inputs stay in [-1, 1).
bool patterned_inputs(Precision precision);

}  // namespace hpcreward::gpu
