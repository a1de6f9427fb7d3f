#include "bench_node/cuda/cuda_include_policy.hpp"

#include <algorithm>

namespace hpcreward::cuda_source {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

struct Refused {
  std::string_view name;  // exact, or a prefix when it ends in '*'
  std::string_view why;
};

constexpr std::string_view kOwnKernels = "the multiplication must be the candidate's own kernels";

constexpr Refused kRefused[] = {
    {"cublas*", "cuBLAS"},
    {"cutlass/*", "CUTLASS, a library of ready-made GEMM kernels"},
    {"cute/*", "CuTe (CUTLASS), a library of ready-made GEMM building blocks"},
    {"thrust/*", "Thrust, a library of ready-made parallel algorithms"},
    {"cub/*", "CUB, a library of ready-made parallel algorithms"},
    {"cuda/std/__*", "an internal header of the CUDA C++ library"},
    {"cusparse*", "cuSPARSE"},
    {"cusolver*", "cuSOLVER"},
    {"cufft*", "cuFFT"},
    {"curand*", "cuRAND"},
    {"cudnn*", "cuDNN"},
    {"cutensor*", "cuTENSOR"},
    {"nvrtc*", "NVRTC (runtime compilation)"},
};

struct Outside {
  std::string_view name;
  std::string_view why;
};

constexpr Outside kOutside[] = {
    {"cuda.h", "the CUDA driver API (candidates use the runtime API in the harness's context)"},
    {"cudaTypedefs.h", "the CUDA driver API (candidates use the runtime API in the harness's context)"},
    {"cuda_profiler_api.h", "it controls the profiler"},
    {"cudaProfiler.h", "it controls the profiler"},
    {"cupti*", "the profiling interface"},
    {"nvtx*", "profiler annotations"},
    {"dlfcn.h", "the dynamic loader reaches any library"},
    {"unistd.h", "system calls: processes, files"},
    {"sys/*", "system calls"},
    {"fcntl.h", "files"},
    {"stdio.h", "files and output"},
    {"cstdio", "files and output"},
    {"iostream", "files and output"},
    {"fstream", "files and output"},
    {"stdlib.h", "process control (system, exit)"},
    {"cstdlib", "process control (system, exit)"},
    {"cuda/std/cstdlib", "process control (abort, exit)"},
    {"thread", "threads"},
    {"pthread.h", "threads"},
    {"future", "threads"},
    {"chrono", "a clock: the harness owns the clock"},
    {"cuda/std/chrono", "a clock: the harness owns the clock"},
    {"time.h", "a clock: the harness owns the clock"},
    {"ctime", "a clock: the harness owns the clock"},
    {"cuda/std/ctime", "a clock: the harness owns the clock"},
    {"signal.h", "signals"},
    {"csignal", "signals"},
};

bool matches(std::string_view pattern, std::string_view name) {
  if (!pattern.empty() && pattern.back() == '*')
    return starts_with(name, pattern.substr(0, pattern.size() - 1));
  return name == pattern;
}

std::string list_text() {
  std::string text;
  for (std::string_view header : allowed_cuda_headers()) {
    if (!text.empty()) text += " ";
    text += header;
  }
  return text;
}

}  // namespace

const std::vector<std::string_view> &allowed_cuda_headers() {
  static const std::vector<std::string_view> headers = {
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
      "limits", "algorithm", "array"};
  return headers;
}

bool allowed_cuda_header(std::string_view name) {
  const auto &headers = allowed_cuda_headers();
  return std::find(headers.begin(), headers.end(), name) != headers.end();
}

std::optional<std::string> header_refusal_reason(std::string_view name) {
  for (const Refused &refused : kRefused)
    if (matches(refused.name, name)) return std::string(refused.why) + ": " + std::string(kOwnKernels);
  for (const Outside &outside : kOutside)
    if (matches(outside.name, name)) return std::string(outside.why);
  return std::nullopt;
}

std::optional<std::string> cuda_include_refusal(const source_checks::Directive &directive) {
  using source_checks::TokenKind;
  const std::string at = " at line " + std::to_string(directive.line);
  const std::string allowed = " (allowed: " + list_text() + ")";
  if (directive.name != "include") return "#" + directive.name + at + " is refused" + allowed;
  if (directive.operands.empty() || directive.operands[0]->kind != TokenKind::header_name)
    return "computed #include" + at + " is refused" + allowed;
  const std::string &spelled = directive.operands[0]->text;
  const std::string shown = "#include " + spelled + at;
  if (spelled.size() < 2 || spelled.front() != '<' || spelled.back() != '>')
    return shown + ": quoted includes are refused (only the toolkit's and the compiler's own "
                   "headers may be included, as <name>)";
  const std::string name = spelled.substr(1, spelled.size() - 2);
  if (directive.operands.size() > 1) return shown + ": unexpected tokens after the header name";
  if (allowed_cuda_header(name)) return std::nullopt;
  if (std::optional<std::string> why = header_refusal_reason(name))
    return shown + " is refused: " + *why;
  return shown + " is not on the allow-list" + allowed;
}

}  // namespace hpcreward::cuda_source
