#pragma once
// The checks on the lexed source that need no compiler: every directive in every #if branch,
// and the operators that make pragmas out of code.
//   - #include: include_policy.hpp; #include_next, #import: refused
//   - #define, #undef, #if, #ifdef, #ifndef, #elif, #else, #endif, #error, #warning, the
//     null directive: allowed; #elifdef and #elifndef (unknown to the checker's parser),
//     #line and line markers (they misplace code), #ident, #assert, ... : refused
//   - #define / #undef of a keyword or of a name starting with an underscore (those belong
//     to the compiler and its headers; redefining them changes the headers as gcc reads
//     them), except the feature-test macros (_GNU_SOURCE, _POSIX_C_SOURCE, ...)
//   - #pragma and _Pragma("..."): pragma_policy.hpp; _Pragma must have one literal string
//   - identifiers that ## could paste into _Pragma (_, _P, _Pr, ... _Pragm): refused, since
//     a pasted _Pragma never shows up as a token
//   - raw string literals (R"x(...)x", which gcc lexes in gnu modes and this lexer and
//     clang do not: text inside one can be a comment to them and code to gcc)
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bench_node/source_checks/c_lexer.hpp"
#include "bench_node/source_checks/finding.hpp"

namespace hpcreward::source_checks {

struct Directive;

// What differs between the languages the directive and _Pragma rules serve (C here, CUDA in
// bench_node/cuda/): which includes, pragmas and macro names pass, how a _Pragma's string is
// lexed, and what a raw string is called.
struct PreprocessorPolicy {
  std::optional<std::string> (*include_refusal)(const Directive &directive);
  std::optional<std::string> (*pragma_refusal)(const std::vector<const Token *> &tokens, const std::string &where);
  bool (*keyword)(std::string_view name);  // a macro may not redefine one
  LexOptions lex;
  std::string raw_string_note;             // after "raw string literal at line N"
  bool libclang_parses = true;             // C: the libclang parse cannot read #elifdef
};
const PreprocessorPolicy &c_preprocessor_policy();

std::vector<Finding> preprocessor_findings(const std::vector<Token> &tokens,
                                           const PreprocessorPolicy &policy = c_preprocessor_policy());

// The lines that hold a #pragma, a _Pragma or a macro that expands to one: where the rules
// above saw every pragma (a pragma diagnostic from the checker's parser anywhere else means
// a pragma came from somewhere they did not see).
std::set<int> vetted_pragma_lines(const std::vector<Token> &tokens);

bool feature_test_macro(std::string_view name);  // _GNU_SOURCE, _POSIX_C_SOURCE, ...
bool c_keyword(std::string_view name);           // C11 and GNU keywords (asm, typeof, ...)

}  // namespace hpcreward::source_checks
