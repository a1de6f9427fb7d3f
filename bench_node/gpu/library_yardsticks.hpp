#pragma once
// A GPU rank's yardsticks for a problem (common/yardsticks.hpp), measured in a service child
// of the rank (gpu_child.hpp measure_gpu_yardsticks) at the problem's own shape, layout, batch
// and precision, on inputs drawn as the harness draws them:
//   cublas    cuBLAS's GEMM as a trainer calls it (cublas<T>gemm, its strided-batched form for a
//             batch; TF32 tensor cores allowed for f32, as the problem allows; fp32 accumulation
//             for 16-bit operands)
//   cublaslt  cuBLASLt's heuristic algorithms for the same product (up to 8, 64 MiB of
//             workspace), each timed, the fastest kept: auto-tuning over the heuristic's choices
// Each call timed by CUDA events with L2 flushed before it, as the harness flushes it before a
// candidate's call, and the GPU left idle as long after it; a warm-up until calls settle, then
// timed calls to the yardsticks' stopping rule (bench_node/measure/yardstick_timing.hpp); the
// median of the timed calls.
#include <cstddef>

#include "bench_node/measure/yardstick_timing.hpp"
#include "common/problem.hpp"

namespace hpcreward::gpu {

struct LibraryYardsticks {
  YardstickTiming cublas;
  YardstickTiming cublaslt;  // the fastest algorithm
};

LibraryYardsticks measure_library_yardsticks(Precision precision, const Layout &layout, const Shape &shape,
                                             std::size_t l2_bytes);

}  // namespace hpcreward::gpu
