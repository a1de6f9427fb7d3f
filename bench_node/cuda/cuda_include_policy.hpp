#pragma once
// The headers a CUDA candidate may include (the rule, shared with C: source_checks/
// include_rules.hpp): only `#include <name>` with a name on this list, paths such as
// cuda/std/array included; nothing outside the toolkit's and the compiler's own headers.
//
//   CUDA:     cuda_runtime.h cuda_runtime_api.h cuda_fp16.h cuda_bf16.h cuda_fp8.h
//             cuda_fp6.h cuda_fp4.h mma.h cuda_pipeline.h cuda_pipeline_primitives.h
//             cuda_awbarrier.h cuda_awbarrier_primitives.h cuda_occupancy.h
//             vector_types.h vector_functions.h device_launch_parameters.h
//             cooperative_groups.h cooperative_groups/{memcpy_async,reduce,scan}.h
//             cuda/{pipeline,barrier,ptx,atomic,cmath,bit,type_traits,functional,warp}
//             cuda/std/{array,atomic,barrier,bit,cassert,cfloat,climits,cmath,complex,
//             concepts,cstddef,cstdint,cstring,functional,initializer_list,latch,limits,
//             mdspan,numbers,numeric,optional,semaphore,span,tuple,type_traits,utility}
//   C/C++:    stdint.h cstdint stddef.h cstddef math.h cmath float.h cfloat limits.h climits
//             stdbool.h string.h cstring type_traits utility limits algorithm array
// Refused with their reason (cublas_v2.h: "cuBLAS: ..."): cuBLAS and cuBLASLt, CUTLASS and
// CuTe (but see below), Thrust and CUB, cuSPARSE, cuSOLVER, cuFFT, cuRAND, cuDNN, cuTENSOR, NVRTC, the
// driver API (cuda.h), the profiler, dlfcn.h, unistd.h and sys/*, stdio.h, iostream and
// fstream, stdlib.h, threads, clocks; anything else as "not on the allow-list".
//
// A stage with "libraries": ["cute"] (common/stage_libraries.hpp) also allows cute/*,
// cutlass/arch/*, cutlass/pipeline/* and CUTLASS's numeric types (cutlass/numeric_types.h,
// half.h, bfloat16.h, ...), and still refuses cutlass/gemm/*, cutlass/epilogue/*,
// cutlass/conv/* and the rest of CUTLASS: CuTe's building blocks are allowed, the GEMMs
// assembled from them are not. What the allowed headers include in turn stays on the allowed
// side of that line (tests/cuda_checks/cute_headers_test.cpp checks the pinned release).
#include "bench_node/source_checks/include_rules.hpp"

namespace hpcreward::cuda_source {

// The table of a stage that allows CuTe (`cute`) or not.
const source_checks::IncludeTable &cuda_include_table(bool cute = false);

}  // namespace hpcreward::cuda_source
