#pragma once
// Which pragmas a candidate may use, in #pragma lines and in _Pragma("...") operators. The
// stage owns code generation through its compiler flags, so pragmas that change it or the
// symbols the object exports are refused. The rule is the same for C and CUDA; the list is
// each language's (c_pragma_policy.hpp, ../cuda/cuda_pragma_policy.hpp). A pragma is named by
// its first word, gcc's own by two ("GCC unroll"); an empty pragma does nothing and passes.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench_node/checks/name_table.hpp"
#include "bench_node/source_checks/c_lexer.hpp"

namespace hpcreward::source_checks {

// gcc's pragmas, judged alike in both languages (gcc compiles C, and CUDA's host code):
//   allowed: GCC ivdep, GCC unroll, GCC diagnostic, GCC warning, GCC error
//   refused: GCC optimize / target / push_options / pop_options / reset_options (change the
//            flags the stage set), GCC visibility, redefine_extname (renames a symbol), weak
//            (weak symbols and aliases); any other GCC pragma is not on the list
std::span<const std::string_view> gcc_allowed_pragmas();
std::span<const RefusedName> gcc_refused_pragmas();

// nullopt when a pragma whose tokens (after the word `pragma`) are `tokens` may stay;
// otherwise why not. `where` follows the pragma's name in the reason (" at line 3"):
// "#pragma GCC optimize at line 3 changes code generation, which ...".
std::optional<std::string> pragma_refusal(const std::vector<const Token *> &tokens, const std::string &where,
                                          const NameTable &table);

}  // namespace hpcreward::source_checks
