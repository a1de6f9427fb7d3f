#pragma once
// What a candidate's syntax tree shows, parsed by libclang the way gcc will compile it
// (the source checks' clang_arguments: -std=gnu11 plus the stage's meaningful flags). Only
// cursors in the candidate's own file count; comments and string literals are never
// cursors or code tokens, so mentioning a technique there counts for nothing. Parsing never
// runs anything; a source libclang cannot parse detects nothing.
#include <filesystem>
#include <string>
#include <vector>

namespace hpcreward::techniques {

struct SourceTechniques {
  bool parsed = false;            // false: libclang gave no translation unit
  int omp_directives = 0;         // CXCursor_OMP*Directive cursors
  int avx512_uses = 0;            // _mm512_* calls and macro uses, __m512* type names
  bool blocking = false;          // a tiled loop nest (loop_nest.hpp)
  std::vector<int> tile_sizes;
  std::string loop_order;
  std::string evidence;           // "omp parallel for at line 4; ..."
};

// `omp_include_dir`, when not empty, is searched first for omp.h (the compiler's copy, see
// source_checks/omp_header.hpp); otherwise clang's own is used if installed.
SourceTechniques detect_in_source(const std::string &source,
                                  const std::vector<std::string> &compiler_flags,
                                  const std::filesystem::path &omp_include_dir = {});

}  // namespace hpcreward::techniques
