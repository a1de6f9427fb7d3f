#pragma once
// How the checker's parser (clang) is told to read a candidate the way gcc compiles it:
// -std=gnu11 as GccCompiler passes, then the stage's flags that change what the source
// means (-O, -std, -D/-U, -f(no-)openmp, fast-math flags, -march/-mtune and the x86 SIMD
// -m flags), so macros such as __OPTIMIZE__, _OPENMP and __AVX512F__ and the intrinsics
// available agree. Flags clang would not know, or that do not change the parse, are left
// out (an unknown flag makes clang report an error for the whole file).
#include <filesystem>
#include <string>
#include <vector>

namespace hpcreward::c_analysis {

// `include_dir`, when not empty, goes first among the system include directories (it holds
// the compiler's own omp.h, see bench_node/source_checks/omp_header.hpp).
std::vector<std::string> clang_arguments(const std::vector<std::string> &stage_flags,
                                         const std::filesystem::path &include_dir);

}  // namespace hpcreward::c_analysis
