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
// candidate's call; the median of the timed calls.
#include <cstddef>

#include "common/problem.hpp"

namespace hpcreward::gpu {

struct LibraryYardsticks {
  double cublas = 0;        // GFLOPS
  double cublaslt = 0;      // GFLOPS of the fastest algorithm
};

LibraryYardsticks measure_library_yardsticks(Precision precision, const Layout &layout, const Shape &shape,
                                             std::size_t l2_bytes);

}  // namespace hpcreward::gpu
