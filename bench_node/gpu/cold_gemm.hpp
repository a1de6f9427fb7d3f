#pragma once
// An nvbench-style cold measurement of cuBLAS, the fidelity benchmark's yardstick
// (hpcreward-gpu-fidelity): for each sample the L2 is flushed, a kernel holds the stream until
// the call is queued behind it (so the host's launch falls outside the span), then start event,
// the call, end event; the median of the samples. What nvbench's `measure_cold` does, without
// its guard of other streams (cuBLAS uses only the one it is given).
#include <cstddef>

#include "common/problem.hpp"

namespace hpcreward::gpu {

class Cublas;

// GFLOPS of cuBLAS's GEMM (cublas.gemm) at size^3 in `precision`, random inputs, median of
// `samples`, L2 flushed by a memset of `l2_flush_bytes` before each.
double cold_gemm_gflops(Cublas &cublas, Precision precision, int size, std::size_t l2_flush_bytes, int samples = 50);

}  // namespace hpcreward::gpu
