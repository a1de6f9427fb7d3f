#pragma once
// The CuTe headers a GPU rank compiles stages that allow CuTe with (common/stage_libraries.hpp):
// a directory holding cute/ and cutlass/ of the pinned nvidia-cutlass release, found when the
// project was configured (cmake/Dependencies.cmake, HPCREWARD_CUTE_INCLUDE_DIR) or given with
// hpcreward-bench --cute-include.
#include <filesystem>
#include <string>

namespace hpcreward {

// Where configuration found them; "" when it did not.
std::string default_cute_include();

// "4.2.0" from `include_dir`/cutlass/version.h when `include_dir`/cute/tensor.hpp is there
// too; "" otherwise (no directory given, or not a CUTLASS include directory).
std::string cute_version(const std::filesystem::path &include_dir);

// Whether `include_dir` also holds CUTLASS's host utilities (cutlass/util, from the wheel's
// tools/util/include), which stages allowing all of CUTLASS need.
bool has_cutlass_utilities(const std::filesystem::path &include_dir);

}  // namespace hpcreward
