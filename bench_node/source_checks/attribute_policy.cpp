#include "bench_node/source_checks/attribute_policy.hpp"

#include <set>

#include "bench_node/source_checks/c_lexer.hpp"

namespace hpcreward::source_checks {

namespace {

bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words)
    if (w == word) return true;
  return false;
}

// The names in an attribute list starting at tokens[i] (just inside the brackets), up to
// the closing bracket at depth 0; returns the index after it.
std::size_t list_names(const std::vector<Token> &tokens, std::size_t i, std::string_view close,
                       std::vector<std::string> &names) {
  int depth = 0;
  bool expect_name = true;
  for (; i < tokens.size(); ++i) {
    const Token &token = tokens[i];
    if (depth == 0 && token.is(close)) return i + 1;
    if (token.is("(") || token.is("[")) {
      ++depth;
    } else if (token.is(")") || token.is("]")) {
      --depth;
    } else if (depth == 0 && token.is(",")) {
      expect_name = true;
    } else if (depth == 0 && token.kind == TokenKind::identifier) {
      // [[gnu::name]]: the namespace comes first, the name after "::".
      const bool scoped = i + 2 < tokens.size() && tokens[i + 1].is(":") && tokens[i + 2].is(":");
      if (expect_name && !scoped) names.push_back(token.text);
      if (!scoped) expect_name = false;
    }
  }
  return i;
}

}  // namespace

std::string normalized_attribute(std::string_view spelled) {
  if (spelled.size() > 4 && spelled.substr(0, 2) == "__" &&
      spelled.substr(spelled.size() - 2) == "__")
    return std::string(spelled.substr(2, spelled.size() - 4));
  return std::string(spelled);
}

bool allowed_attribute(std::string_view name) {
  static const std::set<std::string, std::less<>> allowed = {"aligned",
                                                             "packed",
                                                             "unused",
                                                             "maybe_unused",
                                                             "always_inline",
                                                             "noinline",
                                                             "gnu_inline",
                                                             "artificial",
                                                             "flatten",
                                                             "hot",
                                                             "cold",
                                                             "pure",
                                                             "const",
                                                             "nothrow",
                                                             "leaf",
                                                             "malloc",
                                                             "alloc_size",
                                                             "alloc_align",
                                                             "assume_aligned",
                                                             "returns_nonnull",
                                                             "nonnull",
                                                             "noreturn",
                                                             "warn_unused_result",
                                                             "deprecated",
                                                             "may_alias",
                                                             "vector_size",
                                                             "ext_vector_type",
                                                             "mode",
                                                             "fallthrough",
                                                             "noclone",
                                                             "noipa",
                                                             "simd"};
  return allowed.count(normalized_attribute(name)) != 0;
}

std::vector<std::string> printed_attributes(std::string_view printed) {
  const std::vector<Token> tokens = lex_c(printed);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const bool gnu = tokens[i].is("__attribute__") || tokens[i].is("__attribute");
    if (gnu && i + 2 < tokens.size() && tokens[i + 1].is("(") && tokens[i + 2].is("(")) {
      i = list_names(tokens, i + 3, ")", names);  // stops after the inner ")"
    } else if (tokens[i].is("[") && i + 1 < tokens.size() && tokens[i + 1].is("[")) {
      i = list_names(tokens, i + 2, "]", names);
    } else if (tokens[i].is("__declspec") && i + 1 < tokens.size() && tokens[i + 1].is("(")) {
      i = list_names(tokens, i + 2, ")", names);
    }
  }
  return names;
}

std::string attribute_refusal(std::string_view spelled, int line) {
  const std::string name = normalized_attribute(spelled);
  const std::string shown = "attribute " + name + " at line " + std::to_string(line);
  if (one_of(name, {"constructor", "destructor"}))
    return shown + " runs code when the object is loaded or unloaded";
  if (name == "ifunc") return shown + " runs a resolver when the object is loaded";
  if (one_of(name, {"optimize", "target", "target_clones"}))
    return shown + " changes code generation, which the stage's compiler flags control";
  if (one_of(name, {"section", "alias", "weak", "weakref", "visibility", "used", "retain",
                    "externally_visible", "symver", "copy", "common", "nocommon", "tls_model"}))
    return shown + " changes the symbols or sections of the object";
  if (name == "cleanup") return shown + " calls a function implicitly";
  if (name == "naked") return shown + " makes a function body of assembly";
  return shown +
         " is not on the allow-list (aligned, packed, unused, always_inline, noinline, "
         "hot, cold, pure, const, vector_size, ...)";
}

}  // namespace hpcreward::source_checks
