#pragma once
// What hpcreward-gpu-fidelity compares the harness with: cuBLAS's GEMM (Cublas::gemm) at
// size^3, random inputs, timed by CUDA events around each call, the median of the samples.
//   cold   nvbench-style: for each sample the L2 is flushed (a memset of `l2_flush_bytes`) and a
//          kernel holds the stream until the call is queued behind it, so the host's launch
//          falls outside the span (nvbench's `measure_cold`, without its guard of other
//          streams: cuBLAS uses only the one it is given)
//          `idle_s` > 0: that long idle between samples, as the harness's checks leave the GPU
//          between its calls (tells a power-limited GEMM's speed from the measurement's)
//   plain  10 warm-up calls, then the calls back to back on one set of buffers (how GEMM speeds
//          are usually quoted)
#include <cstddef>

#include "common/problem.hpp"

namespace hpcreward::gpu {

class Cublas;

double cold_gemm_gflops(Cublas &cublas, Precision precision, int size, std::size_t l2_flush_bytes, double idle_s = 0,
                        int samples = 50);
double plain_gemm_gflops(Cublas &cublas, Precision precision, int size, int samples = 50);

}  // namespace hpcreward::gpu
