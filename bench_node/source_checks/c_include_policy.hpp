#pragma once
// The headers a C candidate may include (the rule: include_rules.hpp): what a GEMM in C needs
// and nothing that reaches the outside world.
//   C library: stddef.h stdint.h stdlib.h string.h math.h float.h limits.h stdbool.h stdalign.h
//              stdatomic.h (compiler builtins, judged as such by call_policy.hpp)
//   OpenMP:    omp.h
//   x86 SIMD:  x86intrin.h and immintrin.h (everything up to AVX-512) and the MMX and SSE
//              headers they include, which may also be included directly: mmintrin.h
//              xmmintrin.h emmintrin.h pmmintrin.h tmmintrin.h smmintrin.h nmmintrin.h.
//              Their intrinsics are all judged by name (call_policy.hpp): those that read
//              clocks or counters (x86intrin.h's __rdtsc, __rdpmc) stay refused.
// No paths. Not stdio.h (files, and output the harness does not want), unistd.h, time.h,
// signal.h, pthread.h, dlfcn.h, ...; not assert.h (its failure path calls __assert_fail and
// abort, which the object audit refuses).
#include "bench_node/source_checks/include_rules.hpp"

namespace hpcreward::source_checks {

const IncludeTable &c_include_table();

}  // namespace hpcreward::source_checks
