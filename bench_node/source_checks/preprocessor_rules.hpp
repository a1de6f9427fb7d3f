#pragma once
// The checks on the lexed source that need no compiler: every directive in every #if branch,
// and the operators that make pragmas out of code. The rules are the same for C and CUDA;
// what differs is each language's table (c_preprocessor_policy.hpp,
// ../cuda/cuda_preprocessor_policy.hpp).
//   - #include: include_rules.hpp; #include_next, #import: refused
//   - #define, #undef, #if, #ifdef, #ifndef, #elif, #else, #endif, #error, #warning, the
//     null directive: allowed; #elifdef and #elifndef where the checker's parser does not
//     know them (C), #line and line markers (they misplace code), #ident, #assert, ... : refused
//   - #define / #undef of a keyword (keywords.hpp) or of a name starting with an underscore
//     (those belong to the compiler and its headers; redefining them changes the headers as
//     the compiler reads them), except the feature-test macros (_GNU_SOURCE, ...)
//   - #pragma and _Pragma("..."): pragma_rules.hpp; _Pragma must have one literal string
//   - identifiers that ## could paste into _Pragma (_, _P, _Pr, ... _Pragm): refused, since
//     a pasted _Pragma never shows up as a token
//   - raw string literals (R"x(...)x"), which this lexer does not follow: text inside one
//     could be a comment here and code to the compiler
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bench_node/checks/name_table.hpp"
#include "bench_node/source_checks/c_lexer.hpp"
#include "bench_node/source_checks/finding.hpp"
#include "bench_node/source_checks/include_rules.hpp"

namespace hpcreward::source_checks {

// What differs between the languages the directive and _Pragma rules serve.
struct PreprocessorTable {
  const IncludeTable &includes;
  const NameTable &pragmas;
  bool (*keyword)(std::string_view name);  // a macro may not redefine one
  LexOptions lex;                          // how a _Pragma's string is lexed
  std::string_view raw_string_note;        // after "raw string literal at line N"
  bool libclang_parses = true;             // C: the libclang parse cannot read #elifdef
  // An identifier that starts "_Pragma" ("_", "_Pra") is refused: a paste (the source's ##, or
  // a header's macro such as glibc's __CONCAT or CUTLASS's concat_tok) could make a _Pragma of
  // it. In stages that allow CuTe, whose placeholder `_` is in every CuTe kernel, `_` itself is
  // refused only beside an identifier "P" to "Pragma", the second piece every paste of `_` into
  // _Pragma needs. A header's macro that pastes a `_` of its own (CUDA's _NV_TEST_PAREN2) with
  // a candidate's "Pragma" is the residual, in every CUDA stage: the pragma it makes meets the
  // object audit (exports, imports, load-time code), not this rule. C sources also have
  // libclang's parse, which refuses a pragma on a line these rules did not vet.
  bool underscore_judged_by_its_partner = false;
};

std::vector<Finding> preprocessor_findings(const std::vector<Token> &tokens, const PreprocessorTable &table);

// The lines that hold a #pragma, a _Pragma or a macro that expands to one: where the rules
// above saw every pragma (a pragma diagnostic from the checker's parser anywhere else means
// a pragma came from somewhere they did not see).
std::set<int> vetted_pragma_lines(const std::vector<Token> &tokens);

bool feature_test_macro(std::string_view name);  // _GNU_SOURCE, _POSIX_C_SOURCE, ...

}  // namespace hpcreward::source_checks
