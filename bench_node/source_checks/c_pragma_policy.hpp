#pragma once
// The pragmas a C candidate may use (the rule: pragma_rules.hpp): loop hints and OpenMP are
// what a GEMM needs.
//   allowed: omp ...; STDC ...; once; pack; message; unroll; ivdep (other compilers' loop
//            hints, which gcc ignores); gcc's (pragma_rules.hpp): GCC ivdep, GCC unroll,
//            GCC diagnostic, GCC warning, GCC error
//   refused: gcc's (GCC optimize, target, ..., visibility, redefine_extname, weak),
//            GCC system_header, GCC poison, clang ..., and anything else not on the list
#include "bench_node/checks/name_table.hpp"

namespace hpcreward::source_checks {

const NameTable &c_pragma_table();

}  // namespace hpcreward::source_checks
