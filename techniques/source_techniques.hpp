#pragma once
// What a candidate's syntax tree shows, parsed by libclang the way gcc will compile it
// (c_analysis/: clang_arguments, -std=gnu11 plus the stage's meaningful flags). Only cursors
// in the candidate's own file count; comments and string literals are never cursors or code
// tokens, so mentioning a technique there counts for nothing. Parsing never runs anything;
// a source libclang cannot parse detects nothing.
//
// The translation unit comes from the caller: on a rank it is the one the source checks
// parsed (bench_node/source_checks/), so each candidate is parsed once as compiled.
// libclang does not show the statements inside an OpenMP region, so under -fopenmp the
// intrinsics and loops are read from a second parse with serial_parse_flags.
#include <clang-c/Index.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hpcreward::techniques {

struct SourceTechniques {
  bool parsed = false;            // false: libclang gave no translation unit
  int omp_directives = 0;         // CXCursor_OMP*Directive cursors
  int avx512_uses = 0;            // _mm512_* calls and macro uses, __m512* type names
  int simd_uses = 0;              // the same below AVX-512: _mm_*, _mm256_*, __m128*, __m256*
  bool blocking = false;          // a tiled loop nest (loop_nest.hpp)
  std::vector<int> tile_sizes;
  std::string loop_order;
  std::string evidence;           // "omp parallel for at line 4; ..."
};

// The flags of the second parse when `compiler_flags` turn OpenMP on: OpenMP off (the
// pragmas are ignored, the loops are plain statements) but _OPENMP still defined (gcc's
// value), so `#ifdef _OPENMP` takes the branch gcc compiles. nullopt without OpenMP: the
// unit as compiled shows everything.
std::optional<std::vector<std::string>> serial_parse_flags(
    const std::vector<std::string> &compiler_flags);

// The techniques in `as_compiled` (parsed with the stage's flags, c_analysis/clang_parse.hpp)
// and `serial`: nullopt when serial_parse_flags gave none; a null unit when that second
// parse failed (then no intrinsics or loops count).
SourceTechniques detect_in_units(CXTranslationUnit as_compiled,
                                 std::optional<CXTranslationUnit> serial);

// Parses `source` itself (one or two parses, no precompiled preamble) and detects: for
// callers without the source checks' unit (tests, a TechniqueCheck used alone).
// `omp_include_dir`, when not empty, is searched first for omp.h (the compiler's copy, see
// source_checks/omp_header.hpp); otherwise clang's own is used if installed.
SourceTechniques detect_in_source(const std::string &source,
                                  const std::vector<std::string> &compiler_flags,
                                  const std::filesystem::path &omp_include_dir = {});

}  // namespace hpcreward::techniques
