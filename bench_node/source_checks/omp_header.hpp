#pragma once
// The checker parses with clang but gcc compiles, so the checker's parser reads gcc's own
// omp.h: the same declarations and macros gcc sees (clang 14 has an omp.h of its own only
// with Debian's libomp-14-dev, and a different one). gcc's omp.h is copied into a private
// include directory that holds nothing else (so no other gcc header shadows clang's), with
// one edit: GCC 11's `__malloc__ (deallocator)` attribute form, which clang 14 rejects, is
// reduced to plain `__malloc__` (an allocation hint; nothing the checks look at).
#include <filesystem>
#include <string>

namespace hpcreward::source_checks {

// Asks `cc -print-file-name=include/omp.h` (a limited child process) for the compiler's
// omp.h and writes the copy to `include_dir`/omp.h. False when there is none: the parser
// then falls back to clang's own omp.h, if installed.
bool install_compiler_omp_header(const std::string &cc, const std::filesystem::path &include_dir);

// The edit above, on the header's text.
std::string clang_compatible_omp_header(std::string text);

}  // namespace hpcreward::source_checks
