#include "bench_node/source_checks/directives.hpp"

namespace hpcreward::source_checks {

namespace {

bool starts_directive(const Token &token) {
  return token.is("#") && (token.line_start || token.after_newline);
}

}  // namespace

std::vector<Directive> directives_of(const std::vector<Token> &tokens) {
  std::vector<Directive> directives;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (!starts_directive(tokens[i])) continue;
    Directive directive;
    directive.line = tokens[i].line;
    std::size_t j = i + 1;
    if (j < tokens.size() && !tokens[j].line_start) {
      directive.name_token = &tokens[j];
      directive.name = tokens[j].text;
      for (++j; j < tokens.size() && !tokens[j].line_start; ++j)
        directive.operands.push_back(&tokens[j]);
    }
    directives.push_back(std::move(directive));
    i = j - 1;
  }
  return directives;
}

std::vector<bool> directive_lines(const std::vector<Token> &tokens) {
  std::vector<bool> in_directive(tokens.size(), false);
  bool inside = false;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].line_start) inside = false;
    if (starts_directive(tokens[i])) inside = true;
    in_directive[i] = inside;
  }
  return in_directive;
}

std::vector<MacroDefinition> macro_definitions(const std::vector<Directive> &directives) {
  std::vector<MacroDefinition> macros;
  for (const Directive &directive : directives) {
    if (directive.name != "define" || directive.operands.empty()) continue;
    const auto &ops = directive.operands;
    if (ops[0]->kind != TokenKind::identifier) continue;
    MacroDefinition macro;
    macro.name = ops[0]->text;
    macro.line = directive.line;
    std::size_t body = 1;
    // Function-like only when "(" follows the name with no space between.
    if (ops.size() > 1 && ops[1]->is("(") && !ops[1]->space_before) {
      macro.function_like = true;
      std::size_t i = 2;
      for (; i < ops.size() && !ops[i]->is(")"); ++i) {
        if (ops[i]->kind == TokenKind::identifier) macro.parameters.push_back(ops[i]->text);
        if (ops[i]->is("...")) macro.parameters.push_back("__VA_ARGS__");
      }
      if (i == ops.size()) continue;  // no ")": gcc rejects the definition
      body = i + 1;
    }
    macro.body.assign(ops.begin() + static_cast<std::ptrdiff_t>(body), ops.end());
    macros.push_back(std::move(macro));
  }
  return macros;
}

std::optional<std::string> include_preamble(const std::vector<Token> &tokens) {
  std::string preamble;
  std::size_t next = 0;  // the first token not in the preamble so far
  for (const Directive &directive : directives_of(tokens)) {
    if (directive.name != "include") continue;
    // Leading when its # is the next token: nothing but comments came between.
    if (next + 1 >= tokens.size() || directive.name_token != &tokens[next + 1]) return std::nullopt;
    if (directive.operands.empty()) return std::nullopt;
    preamble += "#include " + directive.operands[0]->text + "\n";
    next += 2 + directive.operands.size();
  }
  if (preamble.empty()) return std::nullopt;
  return preamble;
}

}  // namespace hpcreward::source_checks
