#pragma once
// The headers a CUDA candidate may include (the rule, shared with C: source_checks/
// include_rules.hpp): `#include <name>` or `#include "name"` (nvcc looks in the candidate's
// private compile directory first, then where <name> is) of any header of the toolkit's and the compiler's,
// paths such as cuda/std/array included, but for the libraries that would do the
// multiplication and the profiling interfaces, refused with their reason (cublas_v2.h:
// "cuBLAS: ..."): cuBLAS and cuBLASLt, CUTLASS and CuTe (but see below), Thrust and CUB,
// cuSPARSE, cuSOLVER, cuFFT, cuRAND, cuDNN, cuTENSOR, NVRTC, the profiler, CUPTI and NVTX. A
// header does nothing by itself: <cuda.h>, <stdio.h>, <iostream> (iostream_shim.hpp), <cstdlib>,
// <vector>, <string>, <mutex>, <stdexcept> pass, and what the host code calls of them is the
// object audit's to judge (cuda_symbol_policy.hpp). The names listed in kAllowed are those the
// prompt offers (prompts/prompt_fields.cpp).
//
// A stage with "libraries": ["cute"] (common/stage_libraries.hpp) also allows cute/*,
// cutlass/arch/*, cutlass/pipeline/* and CUTLASS's numeric types (cutlass/numeric_types.h,
// half.h, bfloat16.h, ...), and still refuses cutlass/gemm/*, cutlass/epilogue/*,
// cutlass/conv/* and the rest of CUTLASS (a closed family: no catch-all admits it): CuTe's
// building blocks are allowed, the GEMMs assembled from them are not. What the allowed headers include in turn stays on the allowed
// side of that line (tests/cuda_checks/cute_headers_test.cpp checks the pinned release).
// CuTe's side also has the cluster launch (cutlass/cluster_launch.hpp, cutlass/device_kernel.h)
// and the error checks Hopper kernels as published include (cutlass/util/print_error.hpp,
// helper_cuda.hpp).
//
// A stage with "libraries": ["cutlass"] allows all of CUTLASS and CuTe (choosing and tuning
// CUTLASS's GEMMs is its task), cutlass/util/cublas_wrappers.hpp excepted.
#include "bench_node/source_checks/include_rules.hpp"
#include "common/stage_libraries.hpp"

namespace hpcreward::cuda_source {

// The table of a stage by how much of CUTLASS it allows.
const source_checks::IncludeTable &cuda_include_table(CutlassAccess access = CutlassAccess::none);

}  // namespace hpcreward::cuda_source
