#include "bench_node/cuda/cuda_attribute_rules.hpp"

#include "bench_node/source_checks/attribute_policy.hpp"

namespace hpcreward::cuda_source {

namespace {

using source_checks::Token;
using source_checks::TokenKind;

bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words)
    if (w == word) return true;
  return false;
}

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

std::string cuda_refusal(std::string_view spelled, int line) {
  const std::string name = source_checks::normalized_attribute(spelled);
  const std::string shown = "attribute " + name + " at line " + std::to_string(line);
  if (name == "init_priority") return shown + " orders code that runs when the object is loaded";
  if (name == "managed")
    return shown + " makes managed memory (page faults and migrations can hang a shared GPU)";
  return source_checks::attribute_refusal(spelled, line);
}

}  // namespace

bool allowed_cuda_attribute(std::string_view spelled) {
  const std::string name = source_checks::normalized_attribute(spelled);
  if (one_of(name, {"constructor", "destructor", "init_priority", "managed"})) return false;
  return source_checks::allowed_attribute(name) ||
         one_of(name, {"launch_bounds", "global", "device", "host", "shared", "constant",
                       "grid_constant", "cluster_dims", "maxnreg", "nodiscard", "likely",
                       "unlikely", "no_unique_address", "carries_dependency"});
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

std::vector<source_checks::Finding> attribute_findings(const std::vector<Token> &tokens) {
  std::vector<source_checks::Finding> findings;
  for (const WrittenAttribute &attribute : written_attributes(tokens))
    if (!allowed_cuda_attribute(attribute.name))
      findings.push_back({Status::forbidden, attribute.line, cuda_refusal(attribute.name, attribute.line)});
  return findings;
}

}  // namespace hpcreward::cuda_source
