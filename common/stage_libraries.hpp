#pragma once
// Libraries a stage may allow beyond the toolkit and the compiler's own headers, named in a
// ladder file's "libraries" key and carried by every task of the stage. One today:
//
//   cute   CUTLASS's CuTe (cute/*: layouts, tensors, MMA and copy atoms), the instruction and
//          pipeline headers beside it (cutlass/arch/*, cutlass/pipeline/*) and CUTLASS's
//          numeric types, from the pinned nvidia-cutlass package (jobs/install-deps.sh).
//          CUDA stages only. Ready-made GEMM kernels, collectives and epilogues stay refused
//          (bench_node/cuda/cuda_include_policy.hpp draws the line; docs/design.md says why).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward {

inline constexpr std::string_view kCuteLibrary = "cute";
inline constexpr std::string_view kStageLibraries[] = {kCuteLibrary};

// The CUTLASS release whose headers the CuTe stage compiles with (the nvidia-cutlass wheel).
inline constexpr std::string_view kPinnedCutlassVersion = "4.2.0";

// What to do when a GPU rank has none.
inline constexpr std::string_view kCuteInstallHint =
    "run jobs/install-deps.sh on its node (it installs the pinned nvidia-cutlass headers) and rebuild, "
    "or start hpcreward-bench --gpu with --cute-include DIR";

inline bool known_stage_library(std::string_view name) {
  return std::find(std::begin(kStageLibraries), std::end(kStageLibraries), name) != std::end(kStageLibraries);
}

inline bool allows_library(const std::vector<std::string> &libraries, std::string_view name) {
  return std::find(libraries.begin(), libraries.end(), name) != libraries.end();
}

}  // namespace hpcreward
