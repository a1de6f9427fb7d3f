#pragma once
// One parse of a candidate by libclang, as the in-memory file "cand.c" (the name gcc
// compiles it under, so __FILE__ agrees); nothing is written.
#include <clang-c/Index.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench_node/source_checks/libclang_handles.hpp"

namespace hpcreward::source_checks {

inline constexpr const char *kCandidateFile = "cand.c";

// Null when libclang could not parse at all (`error` then says why). `pch`, when not
// empty, is loaded with -include-pch (preamble_cache.hpp).
TranslationUnitHandle parse_candidate(CXIndex index, const std::string &source,
                                      std::vector<std::string> arguments,
                                      const std::filesystem::path &pch, std::string &error);

// The first error clang reported in the candidate's file ("line 3: expected ';' ..."), or
// "" when there is none.
std::string first_error_in_candidate(CXTranslationUnit unit);

}  // namespace hpcreward::source_checks
