#pragma once
// Verifies and times one CUDA candidate in the GPU runner (docs/design.md "Measuring
// honestly"). Full checks against cuBLAS at the nominal and every check shape, twice on the
// same buffers with new values; then warm-up and timed calls at the nominal shape over a
// ring of buffer sets refilled before every call, L2 flushed, CUDA events around the call
// with a device-wide synchronize before the end event, a wall-clock cross-check per call,
// and every output checked on the device (the row-wise residual check, residual_bound.hpp),
// every guard zone and input checksum checked after every call.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bench_node/timing_options.hpp"
#include "common/messages.hpp"
#include "common/problem.hpp"

namespace hpcreward::gpu {

class Cublas;

// The candidate's entry point, whatever its element type (all are pointers to the ABI).
struct CandidateEntry {
  void *symbol = nullptr;
  Precision precision = Precision::f64;
  void call(int m, int n, int k, const void *a, const void *b, void *c) const;
};

struct GpuHarnessConfig {
  Precision precision = Precision::f64;
  Shape nominal;
  std::vector<Shape> check_shapes;
  double tolerance = 0;          // ||C - Cref||_F / ||Cref||_F (full checks)
  double element_tolerance = 0;  // |C - Cref|_ij / (|A||B|)_ij (full checks)
  // Timed outputs meet residual_bound.hpp; inputs, check vectors and guard patterns come from
  // the kernel's random source for each use (random_fill.hpp kernel_random_u64).
  TimingOptions timing;
  std::size_t ring_bytes = 8ULL << 30;  // device memory for the timing ring's buffer sets
  std::size_t l2_bytes = 50ULL << 20;   // the device's L2; the flush writes twice this
  // Benchmarks only (hpcreward-gpu-fidelity attributes differences with them); ranks keep both.
  bool flush_l2 = true;
  bool reset_persisting_l2 = true;
  // Hold the device behind a blocker while the candidate's launches are queued (device_kernels
  // launch_blocker), at most this long; 0 (ranks): start the clock on an idle device. Off on
  // ranks: on an H100 a kernel on a non-blocking stream read 16% faster than the same kernel
  // on the legacy stream behind the blocker (REPORT.md), a reward a candidate could game.
  double launch_lead_s = 0;
};

// Fraction of timed calls whose event time may fall short of half their wall time before the
// run is refused (preemption of the harness between its clock and its event is rare).
inline constexpr double kClockDisagreementAllowed = 0.1;

// The Measurement: ok with timings, or the first failure. Throws CudaError for failures of
// the harness's own CUDA calls before the candidate ran.
Measurement run_gpu_harness(const CandidateEntry &candidate, const GpuHarnessConfig &config,
                            Cublas &cublas);

// Exponent range of input scaling per precision (device_kernels.hpp fill_operand): f32 inputs
// span 2^-20 .. 2^20 per row of A and column of B, so an fp16 shortcut overflows or loses
// rows; f64 and f16 stay in [-1, 1).
int input_exponent_range(Precision precision);

}  // namespace hpcreward::gpu
