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

using source_checks::Directive;
using source_checks::Finding;
using source_checks::Token;
using source_checks::TokenKind;

constexpr std::string_view kPragmaOperator = "_Pragma";
constexpr std::string_view kDirectives =
    "include, define, undef, if, ifdef, ifndef, elif, else, endif, pragma, error, warning";

bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words)
    if (w == word) return true;
  return false;
}

std::string at_line(int line) { return " at line " + std::to_string(line); }

std::optional<std::string> macro_name_refusal(const Directive &directive) {
  if (directive.operands.empty()) return std::nullopt;  // nvcc rejects it
  const std::string &name = directive.operands[0]->text;
  const std::string shown = "#" + directive.name + " " + name + at_line(directive.line);
  if (source_checks::c_keyword(name) || cxx_keyword(name)) return shown + " redefines a keyword";
  if (!name.empty() && name[0] == '_' && !source_checks::feature_test_macro(name))
    return shown + ": macro names starting with _ belong to the compiler and its headers";
  return std::nullopt;
}

std::optional<std::string> directive_refusal(const Directive &directive) {
  const std::string &name = directive.name;
  if (one_of(name, {"", "define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif",
                    "error", "warning"}))
    return one_of(name, {"define", "undef"}) ? macro_name_refusal(directive) : std::nullopt;
  if (one_of(name, {"include", "include_next", "import"})) return cuda_include_refusal(directive);
  if (name == "pragma") return cuda_pragma_refusal(directive.operands, at_line(directive.line));
  if (directive.name_token->kind == TokenKind::number || name == "line")
    return "a line marker" + at_line(directive.line) + " (it would misplace the code after it)";
  return "#" + name + at_line(directive.line) +
         " is not allowed (allowed directives: " + std::string(kDirectives) + ")";
}

std::optional<std::string> pragma_operator_refusal(const std::vector<Token> &tokens, std::size_t i) {
  const std::string where = " (from _Pragma" + at_line(tokens[i].line) + ")";
  if (i + 3 >= tokens.size() || !tokens[i + 1].is("(") || tokens[i + 2].kind != TokenKind::string ||
      !tokens[i + 3].is(")"))
    return "_Pragma" + at_line(tokens[i].line) +
           " without one literal string operand (write _Pragma(\"...\"))";
  const std::vector<Token> inside =
      source_checks::lex_c(source_checks::destringize(tokens[i + 2].text), cuda_lex_options());
  std::vector<const Token *> words;
  for (const Token &token : inside) words.push_back(&token);
  return cuda_pragma_refusal(words, where);
}

bool pastes_into_pragma(const Token &token) {
  return token.kind == TokenKind::identifier && token.text.size() < kPragmaOperator.size() &&
         kPragmaOperator.substr(0, token.text.size()) == token.text;
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

std::vector<Finding> cuda_source_findings(const std::vector<Token> &tokens) {
  std::vector<Finding> findings;
  auto add = [&](int line, std::string reason) {
    findings.push_back({Status::forbidden, line, std::move(reason)});
  };
  for (const Directive &directive : source_checks::directives_of(tokens))
    if (auto why = directive_refusal(directive)) add(directive.line, *why);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token &token = tokens[i];
    if (token.is(kPragmaOperator)) {
      if (auto why = pragma_operator_refusal(tokens, i)) add(token.line, *why);
    } else if (pastes_into_pragma(token)) {
      add(token.line, "identifier " + token.text + at_line(token.line) +
                          " is refused (## could paste it into _Pragma)");
    } else if (token.is("__managed__")) {
      add(token.line, "__managed__" + at_line(token.line) +
                          " makes managed memory (page faults and migrations can hang a shared GPU)");
    } else if (source_checks::raw_string_prefix(token, i + 1 < tokens.size() ? &tokens[i + 1] : nullptr)) {
      add(token.line, "raw string literal" + at_line(token.line) +
                          " (the checks do not read raw strings; write an ordinary literal)");
      break;  // past it, this lexer and nvcc's may disagree
    }
  }
  for (Finding &finding : attribute_findings(tokens)) findings.push_back(std::move(finding));
  return findings;
}

bool mentions_matmul(const std::vector<Token> &tokens) {
  for (const Token &token : tokens)
    if (token.kind == TokenKind::identifier && token.text == "matmul") return true;
  return false;
}

}  // namespace hpcreward::cuda_source
