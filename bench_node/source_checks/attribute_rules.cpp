#include "bench_node/source_checks/attribute_rules.hpp"

namespace hpcreward::source_checks {

namespace {

// The names of an attribute list starting at tokens[i] (just inside the brackets), up to the
// closing `close` at depth 0; returns the index after it.
std::size_t list_names(const std::vector<Token> &tokens, std::size_t i, std::string_view close,
                       std::vector<WrittenAttribute> &names) {
  int depth = 0;
  bool expect_name = true;
  // [[using gnu: constructor]]: the namespace applies to every name of the list.
  if (i + 2 < tokens.size() && tokens[i].is("using") && tokens[i + 1].kind == TokenKind::identifier &&
      tokens[i + 2].is(":"))
    i += 3;
  for (; i < tokens.size(); ++i) {
    const Token &token = tokens[i];
    if (depth == 0 && token.is(close)) return i + 1;
    if (token.is("(") || token.is("[")) {
      ++depth;
    } else if (token.is(")") || token.is("]")) {
      if (--depth < 0) return i;  // unbalanced: the list ended without its closer
    } else if (depth == 0 && token.is(",")) {
      expect_name = true;
    } else if (depth == 0 && token.kind == TokenKind::identifier) {
      // [[gnu::name]]: the namespace first, the name after "::".
      const bool scoped = i + 2 < tokens.size() && tokens[i + 1].is(":") && tokens[i + 2].is(":");
      if (scoped) {
        i += 2;
        continue;
      }
      if (expect_name) names.push_back({token.text, token.line});
      expect_name = false;
    }
  }
  return i;
}

}  // namespace

std::string normalized_attribute(std::string_view spelled) {
  if (spelled.size() > 4 && spelled.starts_with("__") && spelled.ends_with("__"))
    return std::string(spelled.substr(2, spelled.size() - 4));
  return std::string(spelled);
}

std::vector<WrittenAttribute> written_attributes(const std::vector<Token> &tokens) {
  std::vector<WrittenAttribute> names;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const bool gnu = tokens[i].is("__attribute__") || tokens[i].is("__attribute");
    if (gnu && i + 2 < tokens.size() && tokens[i + 1].is("(") && tokens[i + 2].is("(")) {
      i = list_names(tokens, i + 3, ")", names) - 1;
    } else if (tokens[i].is("[") && i + 1 < tokens.size() && tokens[i + 1].is("[")) {
      i = list_names(tokens, i + 2, "]", names) - 1;
    } else if (tokens[i].is("__declspec") && i + 1 < tokens.size() && tokens[i + 1].is("(")) {
      i = list_names(tokens, i + 2, ")", names) - 1;
    }
  }
  return names;
}

std::optional<std::string> attribute_refusal(std::string_view spelled, int line, const NameTable &table) {
  const std::string name = normalized_attribute(spelled);
  const std::string shown = "attribute " + name + " at line " + std::to_string(line);
  if (std::optional<std::string_view> why = refusal_reason(table, name)) return shown + " " + std::string(*why);
  if (allowed_name(table, name)) return std::nullopt;
  return shown + " is not on the allow-list (allowed: " + allowed_names_text(table) + ")";
}

std::vector<Finding> attribute_findings(const std::vector<Token> &tokens, const NameTable &table) {
  std::vector<Finding> findings;
  for (const WrittenAttribute &attribute : written_attributes(tokens))
    if (std::optional<std::string> why = attribute_refusal(attribute.name, attribute.line, table))
      findings.push_back({Status::forbidden, attribute.line, std::move(*why)});
  return findings;
}

}  // namespace hpcreward::source_checks
