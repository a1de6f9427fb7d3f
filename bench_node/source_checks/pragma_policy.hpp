#pragma once
// Which pragmas a candidate may use, in #pragma lines and in _Pragma("...") operators.
// The stage owns code generation through its compiler flags, so pragmas that change it or
// the symbols the object exports are refused; loop hints and OpenMP are what a GEMM needs.
//   allowed: omp ...; GCC ivdep, GCC unroll, GCC diagnostic, GCC warning, GCC error;
//            STDC ...; once; pack; message; unroll; ivdep (other compilers' loop hints,
//            which gcc ignores)
//   refused: GCC optimize / target / push_options / pop_options / reset_options (change
//            the flags the stage set), redefine_extname (renames a symbol), weak (weak
//            symbols and aliases), GCC visibility, GCC system_header, GCC poison, clang ...,
//            and anything else not on the list
#include <optional>
#include <string>
#include <vector>

#include "bench_node/source_checks/c_lexer.hpp"

namespace hpcreward::source_checks {

// nullopt when a pragma whose tokens (after the word `pragma`) are `tokens` may stay;
// otherwise why not. `where` follows the pragma's name in the reason (" at line 3"):
// "#pragma GCC optimize at line 3 changes code generation, which ...".
std::optional<std::string> pragma_refusal(const std::vector<const Token *> &tokens,
                                          const std::string &where);

}  // namespace hpcreward::source_checks
