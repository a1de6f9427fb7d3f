#pragma once
// Which pragmas a CUDA candidate may use, in #pragma lines and _Pragma("...") operators.
// The stage owns code generation through its flags, so pragmas that change it are refused;
// loop hints and diagnostics are what a kernel needs.
//   allowed: unroll (with or without a count), once, message, STDC ..., nv_diag_suppress,
//            nv_diag_default, nv_diag_warning, nv_diag_error, nv_diag_once, nv_diagnostic,
//            the older diag_suppress, diag_default, diag_warning; GCC ivdep, GCC unroll,
//            GCC diagnostic, GCC warning, GCC error (as for C)
//   refused: GCC optimize / target / push_options / pop_options / reset_options / visibility
//            and redefine_extname and weak (the C policy's reasons), nv_abi (changes the
//            calling convention), omp (no host threads), clang ..., and anything else
#include <optional>
#include <string>
#include <vector>

#include "bench_node/source_checks/c_lexer.hpp"

namespace hpcreward::cuda_source {

// nullopt when a pragma whose tokens (after the word `pragma`) are `tokens` may stay;
// otherwise why not; `where` follows the pragma's name (" at line 3").
std::optional<std::string> cuda_pragma_refusal(const std::vector<const source_checks::Token *> &tokens,
                                               const std::string &where);

}  // namespace hpcreward::cuda_source
