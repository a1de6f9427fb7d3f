#pragma once
// Libraries a stage may allow beyond the toolkit and the compiler's own headers, named in a
// ladder file's "libraries" key and carried by every task of the stage. CUDA stages only; both
// come from the pinned nvidia-cutlass package (jobs/install-deps.sh):
//
//   cute     CUTLASS's CuTe (cute/*: layouts, tensors, MMA and copy atoms, TMA), the instruction
//            and pipeline headers beside it (cutlass/arch/*, cutlass/pipeline/*, cluster launch)
//            and CUTLASS's numeric types. Ready-made GEMM kernels, collectives and epilogues stay
//            refused (bench_node/cuda/cuda_include_policy.hpp draws the line; docs/design.md says why).
//   cutlass  all of CUTLASS, its device- and kernel-level GEMM templates, collective builders,
//            epilogues and host utilities included (cutlass/util/*): a stage where choosing and
//            tuning CUTLASS is the task. It includes cute.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward {

inline constexpr std::string_view kCuteLibrary = "cute";
inline constexpr std::string_view kCutlassLibrary = "cutlass";
inline constexpr std::string_view kStageLibraries[] = {kCuteLibrary, kCutlassLibrary};

// The CUTLASS release whose headers the CuTe stage compiles with (the nvidia-cutlass wheel).
inline constexpr std::string_view kPinnedCutlassVersion = "4.2.0";

// What to do when a GPU rank has none.
inline constexpr std::string_view kCuteInstallHint =
    "run jobs/install-deps.sh on its node (it installs the pinned nvidia-cutlass headers, CuTe's and "
    "CUTLASS's utilities) and rebuild, "
    "or start hpcreward-bench --gpu with --cute-include DIR";

inline bool known_stage_library(std::string_view name) {
  return std::find(std::begin(kStageLibraries), std::end(kStageLibraries), name) != std::end(kStageLibraries);
}

inline bool allows_library(const std::vector<std::string> &libraries, std::string_view name) {
  return std::find(libraries.begin(), libraries.end(), name) != libraries.end();
}

// How much of CUTLASS a stage's candidates may include: none, CuTe's building blocks, or all.
enum class CutlassAccess { none, cute, all };

inline CutlassAccess cutlass_access(const std::vector<std::string> &libraries) {
  if (allows_library(libraries, kCutlassLibrary)) return CutlassAccess::all;
  return allows_library(libraries, kCuteLibrary) ? CutlassAccess::cute : CutlassAccess::none;
}

// Whether the stage compiles with the CUTLASS include directory on the path (either library).
inline bool uses_cutlass_headers(const std::vector<std::string> &libraries) {
  return cutlass_access(libraries) != CutlassAccess::none;
}

}  // namespace hpcreward
