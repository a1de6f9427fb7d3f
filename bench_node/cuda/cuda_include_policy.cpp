#include "bench_node/cuda/cuda_include_policy.hpp"

namespace hpcreward::cuda_source {

namespace {

constexpr std::string_view kAllowed[] = {
    // CUDA
    "cuda_runtime.h", "cuda_runtime_api.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h",
    "cuda_fp6.h", "cuda_fp4.h", "mma.h", "cuda_pipeline.h", "cuda_pipeline_primitives.h",
    "cuda_awbarrier.h", "cuda_awbarrier_primitives.h", "cuda_occupancy.h", "vector_types.h",
    "vector_functions.h", "device_launch_parameters.h", "cooperative_groups.h",
    "cooperative_groups/memcpy_async.h", "cooperative_groups/reduce.h",
    "cooperative_groups/scan.h",
    // libcu++ (CCCL)
    "cuda/pipeline", "cuda/barrier", "cuda/ptx", "cuda/atomic", "cuda/cmath", "cuda/bit",
    "cuda/type_traits", "cuda/functional", "cuda/warp", "cuda/std/array", "cuda/std/atomic",
    "cuda/std/barrier", "cuda/std/bit", "cuda/std/cassert", "cuda/std/cfloat",
    "cuda/std/climits", "cuda/std/cmath", "cuda/std/complex", "cuda/std/concepts",
    "cuda/std/cstddef", "cuda/std/cstdint", "cuda/std/cstring", "cuda/std/functional",
    "cuda/std/initializer_list", "cuda/std/latch", "cuda/std/limits", "cuda/std/mdspan",
    "cuda/std/numbers", "cuda/std/numeric", "cuda/std/optional", "cuda/std/semaphore",
    "cuda/std/span", "cuda/std/tuple", "cuda/std/type_traits", "cuda/std/utility",
    // C and C++
    "stdint.h", "cstdint", "stddef.h", "cstddef", "math.h", "cmath", "float.h", "cfloat",
    "limits.h", "climits", "stdbool.h", "string.h", "cstring", "type_traits", "utility",
    "limits", "algorithm", "array",
    // Any other header, by name: a header does nothing by itself. What the host code calls is
    // judged by the object audit (cuda_symbol_policy.hpp: output to stdout and stderr, strings,
    // exceptions pass; the driver API, files, clocks and threads do not) and the executor's
    // filter; what the device code does needs no call of the host's.
    "*"};


// Outside stages that allow CuTe.
constexpr RefusedName kRefusedCutlass[] = {
    {"cutlass/*", "CUTLASS, a library of ready-made GEMM kernels: the multiplication must be the "
                  "candidate's own kernels"},
    {"cute/*", "CuTe (CUTLASS's layouts and MMA and copy atoms), allowed only in a stage with "
               "\"libraries\": [\"cute\"] (such as cuda-cute)"},
};

// In a stage that allows CuTe: the building blocks a kernel is written with, the
// instructions' and pipelines' wrappers beside them, and CUTLASS's numeric types. What lies
// beyond (the GEMMs CUTLASS assembles from them) stays the candidate's to write: refused with
// a reason where CUTLASS keeps them, anything else of CUTLASS not on the list. (Refusals are
// read first, so no catch-all "cutlass/*" here: it would refuse the numeric types too.)
// The cluster launch (cutlass/cluster_launch.hpp, with the kernel wrapper it launches) and the
// error checks and printing Hopper kernels as published include are on the same side of the line.
constexpr std::string_view kAllowedCute[] = {
    "cute/*", "cutlass/arch/*", "cutlass/pipeline/*", "cutlass/cutlass.h", "cutlass/numeric_types.h",
    "cutlass/numeric_size.h", "cutlass/numeric_conversion.h", "cutlass/half.h", "cutlass/bfloat16.h",
    "cutlass/tfloat32.h", "cutlass/float8.h", "cutlass/array.h", "cutlass/complex.h",
    "cutlass/functional.h", "cutlass/fast_math.h", "cutlass/cluster_launch.hpp", "cutlass/device_kernel.h",
    "cutlass/barrier.h", "cutlass/trace.h", "cutlass/util/print_error.hpp", "cutlass/util/helper_cuda.hpp"};

// In a stage that allows all of CUTLASS: every header of it and of CuTe. What its host code
// calls is still the object audit's to judge.
constexpr std::string_view kAllowedCutlass[] = {"cute/*", "cutlass/*"};
constexpr RefusedName kRefusedInCutlass[] = {
    {"cutlass/util/cublas_wrappers.hpp", "cuBLAS: the multiplication must be CUTLASS's or the candidate's own"},
};

constexpr std::string_view kReadyMadeGemm =
    "a ready-made CUTLASS GEMM (device and kernel level, collectives and their builders, "
    "epilogues): the CuTe stage allows CuTe's building blocks, and the GEMM built from them must "
    "be the candidate's own";
constexpr RefusedName kRefusedBeyondCute[] = {
    {"cutlass/arch/grid_dependency_control.h",
     "it brings in CUTLASS's GEMM and convolution dispatch policies (use cute/arch's or PTX's griddepcontrol)"},
    {"cutlass/gemm/*", kReadyMadeGemm},
    {"cutlass/epilogue/*", kReadyMadeGemm},
    {"cutlass/conv/*", "CUTLASS's ready-made convolutions: the CuTe stage allows CuTe's building blocks"},
    {"cutlass/reduction/*", "CUTLASS's ready-made reductions: the CuTe stage allows CuTe's building blocks"},
};

// CUTLASS's host utilities beyond the error checks and printing kAllowedCute names (tensors,
// device memory, strides, reference GEMMs, timers), by the prefixes of the pinned release's
// cutlass/util (every name but helper_cuda.hpp and print_error.hpp); a later release's other
// names are refused by the closed family.
constexpr std::string_view kHostUtilities =
    "CUTLASS's host utilities (tensors, device memory, strides, reference GEMMs): the CuTe stage allows "
    "CuTe's building blocks and CUTLASS's error checks (cutlass/util/helper_cuda.hpp, print_error.hpp)";
constexpr RefusedName kRefusedUtilities[] = {
    {"cutlass/util/reference/*", kHostUtilities}, {"cutlass/util/host*", kHostUtilities},
    {"cutlass/util/device*", kHostUtilities},     {"cutlass/util/packed_stride.hpp", kHostUtilities},
    {"cutlass/util/GPU_Clock.hpp", kHostUtilities}, {"cutlass/util/command_line.h", kHostUtilities},
    {"cutlass/util/cublas_wrappers.hpp", kHostUtilities}, {"cutlass/util/debug.h", kHostUtilities},
    {"cutlass/util/distribution.h", kHostUtilities}, {"cutlass/util/exceptions.h", kHostUtilities},
    {"cutlass/util/gett_commandline.hpp", kHostUtilities}, {"cutlass/util/index_sequence.h", kHostUtilities},
    {"cutlass/util/mixed_dtype_utils.hpp", kHostUtilities}, {"cutlass/util/tensor_view_io.h", kHostUtilities},
    {"cutlass/util/type_traits.h", kHostUtilities},
};

constexpr RefusedName kRefused[] = {
    // Libraries that would do the multiplication.
    {"cublas*", "cuBLAS: the multiplication must be the candidate's own kernels"},
    {"thrust/*", "Thrust, a library of ready-made parallel algorithms: the multiplication must be "
                 "the candidate's own kernels"},
    {"cub/*", "CUB, a library of ready-made parallel algorithms: the multiplication must be the "
              "candidate's own kernels"},
    {"cuda/std/__*", "an internal header of the CUDA C++ library: the multiplication must be the "
                     "candidate's own kernels"},
    {"cusparse*", "cuSPARSE: the multiplication must be the candidate's own kernels"},
    {"cusolver*", "cuSOLVER: the multiplication must be the candidate's own kernels"},
    {"cufft*", "cuFFT: the multiplication must be the candidate's own kernels"},
    {"curand*", "cuRAND: the multiplication must be the candidate's own kernels"},
    {"cudnn*", "cuDNN: the multiplication must be the candidate's own kernels"},
    {"cutensor*", "cuTENSOR: the multiplication must be the candidate's own kernels"},
    {"nvrtc*", "NVRTC (runtime compilation): the multiplication must be the candidate's own kernels"},
    // Profiling interfaces: the harness's measurement, not the candidate's.
    {"cuda_profiler_api.h", "it controls the profiler"},
    {"cudaProfiler.h", "it controls the profiler"},
    {"cupti*", "the profiling interface"},
    {"nvtx*", "profiler annotations"},
};

}  // namespace

const source_checks::IncludeTable &cuda_include_table(CutlassAccess access) {
  static const source_checks::IncludeTable without_cute{
      .headers = {.allowed = {std::begin(kAllowed), std::end(kAllowed)},
                  .refused = joined<RefusedName>({kRefusedCutlass, kRefused})},
      .paths = true,
      .quoted = true};
  // CUTLASS stays closed where CuTe is allowed: only the headers kAllowedCute names.
  static const source_checks::IncludeTable with_cute{
      .headers = {.allowed = joined<std::string_view>({kAllowed, kAllowedCute}),
                  .refused = joined<RefusedName>({kRefusedBeyondCute, kRefusedUtilities, kRefused})},
      .paths = true,
      .quoted = true,
      .closed_families = {"cutlass/"}};
  static const source_checks::IncludeTable with_cutlass{
      .headers = {.allowed = joined<std::string_view>({kAllowed, kAllowedCutlass}),
                  .refused = joined<RefusedName>({kRefusedInCutlass, kRefused})},
      .paths = true,
      .quoted = true};
  switch (access) {
    case CutlassAccess::none: return without_cute;
    case CutlassAccess::cute: return with_cute;
    case CutlassAccess::all: return with_cutlass;
  }
  return without_cute;
}

}  // namespace hpcreward::cuda_source
