#include "bench_node/source_checks/preprocessor_rules.hpp"

#include <algorithm>
#include <string_view>

#include "bench_node/source_checks/directives.hpp"
#include "bench_node/source_checks/pragma_rules.hpp"

namespace hpcreward::source_checks {

namespace {

constexpr std::string_view kPragmaOperator = "_Pragma";
constexpr std::string_view kDirectives =
    "include, define, undef, if, ifdef, ifndef, elif, else, endif, pragma, error, warning";

bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words)
    if (w == word) return true;
  return false;
}

std::string at_line(int line) {
  return " at line " + std::to_string(line);
}

std::optional<std::string> macro_name_refusal(const Directive &directive, const PreprocessorTable &table) {
  if (directive.operands.empty()) return std::nullopt;  // the compiler rejects it
  const std::string &name = directive.operands[0]->text;
  const std::string shown = "#" + directive.name + " " + name + at_line(directive.line);
  if (table.keyword(name)) return shown + " redefines a keyword";
  if (!name.empty() && name[0] == '_' && !feature_test_macro(name))
    return shown + ": macro names starting with _ belong to the compiler and its headers";
  return std::nullopt;
}

std::optional<std::string> directive_refusal(const Directive &directive, const PreprocessorTable &table) {
  const std::string &name = directive.name;
  if (one_of(name, {"", "define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif",
                    "error", "warning"}))
    return one_of(name, {"define", "undef"}) ? macro_name_refusal(directive, table) : std::nullopt;
  if (one_of(name, {"include", "include_next", "import"})) return include_refusal(directive, table.includes);
  if (name == "pragma") return pragma_refusal(directive.operands, at_line(directive.line), table.pragmas);
  if (table.libclang_parses && (name == "elifdef" || name == "elifndef"))
    return "#" + name + at_line(directive.line) +
           " is refused (the checker's parser does not know it; write #elif defined(...))";
  if (directive.name_token->kind == TokenKind::number || name == "line")
    return "a line marker" + at_line(directive.line) + " (it would misplace the code after it)";
  return "#" + name + at_line(directive.line) +
         " is not allowed (allowed directives: " + std::string(kDirectives) + ")";
}

// `_Pragma` at tokens[i]: must be _Pragma ( string-literal ) with an allowed pragma inside.
std::optional<std::string> pragma_operator_refusal(const std::vector<Token> &tokens, std::size_t i,
                                                   const PreprocessorTable &table) {
  const std::string where = " (from _Pragma" + at_line(tokens[i].line) + ")";
  if (i + 3 >= tokens.size() || !tokens[i + 1].is("(") || tokens[i + 2].kind != TokenKind::string ||
      !tokens[i + 3].is(")"))
    return "_Pragma" + at_line(tokens[i].line) +
           " without one literal string operand (write _Pragma(\"...\"))";
  const std::vector<Token> inside = lex_c(destringize(tokens[i + 2].text), table.lex);
  std::vector<const Token *> words;
  for (const Token &token : inside) words.push_back(&token);
  return pragma_refusal(words, where, table.pragmas);
}

bool pastes_into_pragma(const Token &token) {
  return token.kind == TokenKind::identifier && token.text.size() < kPragmaOperator.size() &&
         kPragmaOperator.substr(0, token.text.size()) == token.text;
}

// "P" to "Pragma": the second piece a paste that starts with `_` needs to make _Pragma.
bool follows_underscore_into_pragma(const Token &token) {
  const std::string_view rest = kPragmaOperator.substr(1);
  return token.kind == TokenKind::identifier && !token.text.empty() && token.text.size() <= rest.size() &&
         rest.substr(0, token.text.size()) == token.text;
}

}  // namespace

bool feature_test_macro(std::string_view name) {
  return one_of(name, {"_GNU_SOURCE", "_DEFAULT_SOURCE", "_POSIX_C_SOURCE", "_XOPEN_SOURCE",
                       "_ISOC11_SOURCE", "_ISOC99_SOURCE", "_USE_MATH_DEFINES"});
}

std::vector<Finding> preprocessor_findings(const std::vector<Token> &tokens, const PreprocessorTable &table) {
  std::vector<Finding> findings;
  auto add = [&](int line, std::string reason) {
    findings.push_back({Status::forbidden, line, std::move(reason)});
  };
  for (const Directive &directive : directives_of(tokens))
    if (auto why = directive_refusal(directive, table)) add(directive.line, *why);
  // CuTe's `_` (PreprocessorTable::underscore_judged_by_its_partner): refused only beside a
  // piece that could follow it into _Pragma.
  const Token *partner = nullptr;
  if (table.underscore_judged_by_its_partner)
    for (const Token &token : tokens)
      if (follows_underscore_into_pragma(token)) {
        partner = &token;
        break;
      }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token &token = tokens[i];
    if (token.is(kPragmaOperator)) {
      if (auto why = pragma_operator_refusal(tokens, i, table)) add(token.line, *why);
    } else if (pastes_into_pragma(token)) {
      if (token.text != "_" || !table.underscore_judged_by_its_partner)
        add(token.line, "identifier " + token.text + at_line(token.line) + " is refused (## could paste it into _Pragma)");
      else if (partner)
        add(token.line, "identifier _" + at_line(token.line) + " is refused beside identifier " + partner->text +
                            at_line(partner->line) + " (a paste of the two, by ## or a header's macro, could " +
                            "make _Pragma): rename " + partner->text);
    } else if (raw_string_prefix(token, i + 1 < tokens.size() ? &tokens[i + 1] : nullptr)) {
      add(token.line, "raw string literal" + at_line(token.line) + std::string(table.raw_string_note));
      break;  // past it, this lexer and the compiler's may disagree
    }
  }
  return findings;
}

std::set<int> vetted_pragma_lines(const std::vector<Token> &tokens) {
  std::set<int> lines;
  const std::vector<Directive> directives = directives_of(tokens);
  for (const Directive &directive : directives)
    if (directive.name == "pragma") {
      lines.insert(directive.line);
      for (const Token *token : directive.operands) lines.insert(token->line);
    }
  // Macros that expand to a _Pragma (directly or through each other), and their uses.
  std::set<std::string> pragma_macros;
  const std::vector<MacroDefinition> macros = macro_definitions(directives);
  for (bool grew = true; grew;) {
    grew = false;
    for (const MacroDefinition &macro : macros)
      for (const Token *token : macro.body)
        if ((token->is(kPragmaOperator) || pragma_macros.count(token->text) != 0) &&
            pragma_macros.insert(macro.name).second)
          grew = true;
  }
  for (const Token &token : tokens)
    if (token.is(kPragmaOperator) || pragma_macros.count(token.text) != 0) lines.insert(token.line);
  return lines;
}

}  // namespace hpcreward::source_checks
