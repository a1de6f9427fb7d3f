#pragma once
// gcc compiles the candidate; the checks read it through clang. Code in an #if branch that
// the two compilers take differently would be compiled unchecked (`#ifndef __clang__`), so
// every condition must mean the same to both:
//   - a name starting with an underscore that a condition can reach (in the #if line, or in
//     the body of a macro it uses, transitively) must be one both compilers define alike:
//     __STDC__, __STDC_VERSION__, __STDC_HOSTED__, __x86_64__, __linux__, __OPTIMIZE__,
//     __FAST_MATH__, the SIMD feature macros (__SSE2__ ... __AVX2__, __FMA__, __AVX512F__,
//     __AVX512CD__, __AVX512DQ__, __AVX512BW__, __AVX512VL__), the byte-order and size
//     macros, __LINE__, the feature-test macros, other platforms' and compilers' macros
//     neither defines here (_WIN32, _MSC_VER, __APPLE__, __INTEL_COMPILER, ...); _OPENMP
//     and __GNUC__ only as
//     `defined(NAME)` or `#ifdef NAME` (their values differ);
//   - so __clang__, __GNUC_MINOR__, __VERSION__, __has_include, __has_attribute,
//     __has_builtin, ... are refused there, and so is any name starting with _ that ## could
//     paste into one of them (a body reached by a condition that pastes makes every macro
//     of the file reachable).
// Names without a leading underscore are the candidate's own or standard ones both define
// alike (NDEBUG, INT_MAX, M_PI, ...).
#include <vector>

#include "bench_node/source_checks/c_lexer.hpp"
#include "bench_node/source_checks/finding.hpp"

namespace hpcreward::source_checks {

std::vector<Finding> conditional_findings(const std::vector<Token> &tokens);

}  // namespace hpcreward::source_checks
