#pragma once
// The pragmas a CUDA candidate may use (the rule, shared with C: source_checks/
// pragma_rules.hpp): loop hints and diagnostics are what a kernel needs.
//   allowed: unroll (with or without a count), once, message, STDC ..., nv_diag_suppress,
//            nv_diag_default, nv_diag_warning, nv_diag_error, nv_diag_once, nv_diagnostic,
//            the older diag_suppress, diag_default, diag_warning; gcc's (GCC ivdep, GCC
//            unroll, GCC diagnostic, GCC warning, GCC error)
//   refused: gcc's (GCC optimize, target, ..., visibility, redefine_extname, weak), nv_abi
//            (changes the calling convention), omp (no host threads), clang ..., and anything
//            else
#include "bench_node/checks/name_table.hpp"

namespace hpcreward::cuda_source {

const NameTable &cuda_pragma_table();

}  // namespace hpcreward::cuda_source
