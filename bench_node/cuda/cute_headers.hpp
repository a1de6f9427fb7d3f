#pragma once
// The CuTe headers a GPU rank compiles stages that allow CuTe with (common/stage_libraries.hpp):
// a directory holding cute/ and cutlass/ of the pinned nvidia-cutlass release, found when the
// project was configured (cmake/Dependencies.cmake, HPCREWARD_CUTE_INCLUDE_DIR) or given with
// hpcreward-bench --cute-include.
#include <filesystem>
#include <string>

namespace hpcreward {

// CuTe's config.hpp includes <iostream> for its host-side printing, and g++ 12's <iostream>
// gives every object that includes it a constructor (a static std::ios_base::Init), which
// runs when the object is loaded, before the executor's filter: the object audit refuses
// every constructor beyond the toolchain's own. So a CuTe compile finds this <iostream>
// first (in the directory named below, inside the compile's own directory): the standard
// streams declared, libstdc++ initializing them as it always does, no constructor.
inline constexpr const char *kCuteIostreamDirectory = "cute-iostream";
inline constexpr const char *kCuteIostream =
    "#pragma once\n"
    "// hpcreward: the standard streams without g++ 12's per-object constructor (bench_node/cuda/cute_headers.hpp)\n"
    "#include <istream>\n#include <ostream>\n"
    "namespace std {\nextern istream cin;\nextern ostream cout;\nextern ostream cerr;\nextern ostream clog;\n}\n";

// Where configuration found them; "" when it did not.
std::string default_cute_include();

// "4.2.0" from `include_dir`/cutlass/version.h when `include_dir`/cute/tensor.hpp is there
// too; "" otherwise (no directory given, or not a CUTLASS include directory).
std::string cute_version(const std::filesystem::path &include_dir);

}  // namespace hpcreward
