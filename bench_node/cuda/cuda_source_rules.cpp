#include "bench_node/cuda/cuda_source_rules.hpp"

#include <string>
#include <string_view>

#include "bench_node/cuda/cuda_attribute_rules.hpp"
#include "bench_node/cuda/cuda_include_policy.hpp"
#include "bench_node/cuda/cuda_pragma_policy.hpp"
#include "bench_node/source_checks/directives.hpp"
#include "bench_node/source_checks/preprocessor_rules.hpp"

namespace hpcreward::cuda_source {

namespace {

using source_checks::Finding;
using source_checks::Token;
using source_checks::TokenKind;

bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words)
    if (w == word) return true;
  return false;
}

std::string at_line(int line) { return " at line " + std::to_string(line); }

bool cuda_keyword(std::string_view name) { return source_checks::c_keyword(name) || cxx_keyword(name); }

const source_checks::PreprocessorPolicy &cuda_preprocessor_policy() {
  static const source_checks::PreprocessorPolicy policy{
      &cuda_include_refusal, &cuda_pragma_refusal, &cuda_keyword, cuda_lex_options(),
      " (the checks do not read raw strings; write an ordinary literal)", false};
  return policy;
}

}  // namespace

source_checks::LexOptions cuda_lex_options() {
  source_checks::LexOptions options;
  options.trigraphs = false;        // removed in C++17, nvcc's default
  options.digit_separators = true;  // C++14: 1'000
  return options;
}

bool cxx_keyword(std::string_view name) {
  return one_of(
      name,
      {"alignas",   "alignof",      "and",          "and_eq",     "bitand",      "bitor",
       "bool",      "catch",        "char8_t",      "char16_t",   "char32_t",    "class",
       "co_await",  "co_return",    "co_yield",     "compl",      "concept",     "consteval",
       "constexpr", "constinit",    "const_cast",   "decltype",   "delete",      "dynamic_cast",
       "explicit",  "export",       "false",        "friend",     "mutable",     "namespace",
       "new",       "noexcept",     "not",          "not_eq",     "nullptr",     "operator",
       "or",        "or_eq",        "private",      "protected",  "public",      "reinterpret_cast",
       "requires",  "static_assert", "static_cast", "template",   "this",        "thread_local",
       "throw",     "true",         "try",          "typeid",     "typename",    "using",
       "virtual",   "wchar_t",      "xor",          "xor_eq"});
}

// The shared directive and _Pragma rules with CUDA's lists, then what only CUDA has.
std::vector<Finding> cuda_source_findings(const std::vector<Token> &tokens) {
  std::vector<Finding> findings = source_checks::preprocessor_findings(tokens, cuda_preprocessor_policy());
  for (const Token &token : tokens)
    if (token.is("__managed__"))
      findings.push_back({Status::forbidden, token.line,
                          "__managed__" + at_line(token.line) +
                              " makes managed memory (page faults and migrations can hang a shared GPU)"});
  for (Finding &finding : attribute_findings(tokens)) findings.push_back(std::move(finding));
  return findings;
}

bool mentions_matmul(const std::vector<Token> &tokens) {
  for (const Token &token : tokens)
    if (token.kind == TokenKind::identifier && token.text == "matmul") return true;
  return false;
}

}  // namespace hpcreward::cuda_source
