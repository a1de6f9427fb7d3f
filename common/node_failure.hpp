#pragma once
// The starts of the compile_error reasons that the node decided (a limit, a tool that could
// not start or crashed), not the candidate's code. Their producers (bench_node/checks/compiler.cpp,
// cuda/nvcc_compiler.cpp, source_checks/, the object audits) begin such a reason with one of
// these, and the repeat cache (coordinator/scoring/measurement_cache.cpp) never reuses a row whose
// reason does: the same code may compile on a later try. One list, so a reworded message
// cannot silently become a cached verdict. (A row keeps only its reason text, and a resumed
// run's cache is rebuilt from rows: hence text, not a flag.)
#include <string_view>

namespace hpcreward::node_failure {

inline constexpr std::string_view kCompilerNotStarted = "could not start the compiler";
inline constexpr std::string_view kCompilerTimedOut = "compiler timed out";
inline constexpr std::string_view kCompilerKilled = "compiler killed by signal";
inline constexpr std::string_view kParserTimedOut = "the checker's C parser ran past";
inline constexpr std::string_view kParserOutOfMemory = "the checker's C parser ran out of memory";
inline constexpr std::string_view kParserFailed = "the checker's C parser failed";
inline constexpr std::string_view kParserNoVerdict = "the checker's C parser returned no verdict";
inline constexpr std::string_view kObjectUnreadable = "the compiled object can't be read";
inline constexpr std::string_view kHostCodeUnreadable = "the compiled object's host code can't be read";
inline constexpr std::string_view kNoCuteHeaders = "this GPU rank has no CuTe headers";
inline constexpr std::string_view kNoCutlassUtilities = "this GPU rank's CUTLASS headers have no cutlass/util";

inline constexpr std::string_view kAll[] = {kCompilerNotStarted, kCompilerTimedOut, kCompilerKilled,
                                            kParserTimedOut,     kParserOutOfMemory, kParserFailed, kParserNoVerdict,
                                            kObjectUnreadable,   kHostCodeUnreadable, kNoCuteHeaders,
                                            kNoCutlassUtilities};

// Whether a compile_error's reason is one of these.
constexpr bool decided_by_node(std::string_view reason) {
  for (std::string_view start : kAll)
    if (reason.starts_with(start)) return true;
  return false;
}

}  // namespace hpcreward::node_failure
