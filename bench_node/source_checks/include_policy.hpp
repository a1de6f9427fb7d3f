#pragma once
// Which headers a candidate may include, judged on the directive as written, before any
// compiler (or the checker's own parser) opens a file. Only `#include <name>` with a name on
// the allow-list passes: a quoted include, a path, a computed include (#include MACRO),
// #include_next and #import are refused, so nothing outside the compilers' own system
// headers can ever be read (no /dev/zero, no /etc/passwd, no self-include).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_node/source_checks/directives.hpp"

namespace hpcreward::source_checks {

// The allow-list: what a GEMM in C needs and nothing that reaches the outside world.
//   C library: stddef.h stdint.h stdlib.h string.h math.h float.h limits.h stdbool.h stdalign.h
//   OpenMP:    omp.h
//   x86 SIMD:  immintrin.h (everything up to AVX-512) and the SSE headers it includes,
//              which may also be included directly: xmmintrin.h emmintrin.h pmmintrin.h
//              tmmintrin.h smmintrin.h nmmintrin.h
// Not stdio.h (files, and output the harness does not want), unistd.h, time.h, signal.h,
// pthread.h, dlfcn.h, ...; not assert.h (its failure path calls __assert_fail and abort,
// which the object audit refuses).
const std::vector<std::string_view> &allowed_headers();
bool allowed_header(std::string_view name);
std::string allowed_headers_text();  // "stddef.h stdint.h ..."

// nullopt when the include directive `directive` (name "include", "include_next" or
// "import") may stay; otherwise the complete reason.
std::optional<std::string> include_refusal(const Directive &directive);

}  // namespace hpcreward::source_checks
