#pragma once
// One parse of a candidate by libclang, as the in-memory file "cand.c" (the name gcc
// compiles it under, so __FILE__ agrees); nothing is written. The one translation unit
// serves both the source checks (bench_node/source_checks/) and technique detection
// (techniques/), so it keeps what each needs: the attributes clang adds itself, and
// the preprocessing record (macro definitions and expansions as cursors).
#include <clang-c/Index.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "c_analysis/libclang_handles.hpp"
#include "c_analysis/preamble_cache.hpp"

namespace hpcreward::c_analysis {

inline constexpr const char *kCandidateFile = "cand.c";

// Null when libclang could not parse at all (`error` then says why). `pch`, when not
// empty, is loaded with -include-pch (preamble_cache.hpp).
TranslationUnitHandle parse_candidate(CXIndex index, const std::string &source,
                                      std::vector<std::string> arguments,
                                      const std::filesystem::path &pch, std::string &error);

// parse_candidate with the PCH of `preamble` (the candidate's leading #include lines) from
// `cache` when there is one; without, when there is none or clang would not load it.
TranslationUnitHandle parse_with_preamble(CXIndex index, const std::string &source,
                                          const std::vector<std::string> &arguments,
                                          PreambleCache &cache,
                                          const std::optional<std::string> &preamble,
                                          std::string &error);

// Whether clang failed to load a precompiled preamble.
bool precompiled_header_failed(CXTranslationUnit unit);

// The first error clang reported in the candidate's file ("line 3: expected ';' ..."), or
// "" when there is none.
std::string first_error_in_candidate(CXTranslationUnit unit);

}  // namespace hpcreward::c_analysis
