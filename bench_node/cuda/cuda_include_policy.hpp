#pragma once
// Which headers a CUDA candidate may include, judged on the directive as written, before
// nvcc opens a file (the C checks' rule, bench_node/source_checks/include_policy.hpp, with
// CUDA's list): only `#include <name>` with a name on the allow-list passes; quoted,
// computed and #include_next / #import includes are refused, so nothing outside the
// toolkit's and the compiler's own headers can be read.
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
// Refused with the reason (cublas_v2.h: "cuBLAS: ..."): cuBLAS and cuBLASLt, CUTLASS and
// CuTe, Thrust and CUB, cuSPARSE, cuSOLVER, cuFFT, cuRAND, cuDNN, cuTENSOR, NVRTC, the
// driver API (cuda.h), the profiler, dlfcn.h, unistd.h and sys/*, stdio.h, iostream and
// fstream, stdlib.h, threads, clocks; anything else as "not on the allow-list".
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_node/source_checks/directives.hpp"

namespace hpcreward::cuda_source {

const std::vector<std::string_view> &allowed_cuda_headers();
bool allowed_cuda_header(std::string_view name);

// Why a header that is not on the list is refused: "cuBLAS: the multiplication must be the
// candidate's own kernels"; nullopt when there is no reason beyond not being listed.
std::optional<std::string> header_refusal_reason(std::string_view name);

// nullopt when the include directive may stay; otherwise the complete reason.
std::optional<std::string> cuda_include_refusal(const source_checks::Directive &directive);

}  // namespace hpcreward::cuda_source
