#pragma once
// How gcc lexes a candidate under the stage's flags, for the checks' own lexer (c_lexer.hpp).
#include <string>
#include <vector>

#include "bench_node/source_checks/c_lexer.hpp"

namespace hpcreward::source_checks {

// Trigraphs in ISO modes (-std=c11, -ansi) or with -trigraphs; digit separators from C2x on.
LexOptions lex_options(const std::vector<std::string> &stage_flags);

}  // namespace hpcreward::source_checks
