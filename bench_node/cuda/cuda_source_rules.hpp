#pragma once
// The rules on a lexed CUDA source that need no compiler (the C checks' preprocessor rules,
// bench_node/source_checks/preprocessor_rules.hpp, with CUDA's policies), in every #if branch:
//   - #include: cuda_include_policy.hpp; #include_next, #import: refused
//   - #define, #undef, #if, #ifdef, #ifndef, #elif, #else, #endif, #error, #warning, the null
//     directive: allowed; #line and line markers (they misplace code), and others: refused
//   - #define / #undef of a C or C++ keyword, or of a name starting with an underscore (those
//     belong to the compiler and its headers: __CUDA_ARCH__, __CUDACC__, ...), except the
//     feature-test macros
//   - #pragma and _Pragma("..."): cuda_pragma_policy.hpp; identifiers that ## could paste
//     into _Pragma (_, _P, ... _Pragm): refused
//   - raw string literals (R"x(...)x"): the lexer does not follow them, so text inside one
//     could be code to nvcc and a comment here
//   - attributes: cuda_attribute_rules.hpp; __managed__ (managed memory)
// Not here, by design: asm. Device code uses inline PTX (mma, cp.async, ldmatrix), and a
// token rule cannot tell host asm from device asm; the object audit reads the host code.
#include <vector>

#include "bench_node/source_checks/c_lexer.hpp"
#include "bench_node/source_checks/finding.hpp"

namespace hpcreward::cuda_source {

// How nvcc (C++17 by default) lexes: digit separators, no trigraphs.
source_checks::LexOptions cuda_lex_options();

std::vector<source_checks::Finding> cuda_source_findings(const std::vector<source_checks::Token> &tokens);

// Whether `matmul` appears as an identifier (not in a comment or a string).
bool mentions_matmul(const std::vector<source_checks::Token> &tokens);

bool cxx_keyword(std::string_view name);  // C++20 keywords that are not C's

}  // namespace hpcreward::cuda_source
