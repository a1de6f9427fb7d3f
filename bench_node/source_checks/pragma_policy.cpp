#include "bench_node/source_checks/pragma_policy.hpp"

#include <string_view>

namespace hpcreward::source_checks {

namespace {

constexpr std::string_view kAllowed =
    "omp, GCC ivdep, GCC unroll, GCC diagnostic, STDC, once, pack, message, unroll, ivdep";

bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words)
    if (w == word) return true;
  return false;
}

std::string not_listed(const std::string &shown) {
  return shown + " is not on the allow-list (allowed: " + std::string(kAllowed) + ")";
}

std::optional<std::string> gcc_pragma(std::string_view name, const std::string &where) {
  if (one_of(name, {"ivdep", "unroll", "diagnostic", "warning", "error"})) return std::nullopt;
  const std::string shown = "#pragma GCC " + std::string(name) + where;
  if (one_of(name, {"optimize", "target", "push_options", "pop_options", "reset_options"}))
    return shown + " changes code generation, which the stage's compiler flags control";
  if (name == "visibility") return shown + " changes which symbols the object exports";
  return not_listed(shown);
}

}  // namespace

std::optional<std::string> pragma_refusal(const std::vector<const Token *> &tokens,
                                          const std::string &where) {
  if (tokens.empty()) return std::nullopt;  // an empty pragma does nothing
  const std::string &space = tokens[0]->text;
  if (tokens[0]->kind != TokenKind::identifier) return not_listed("#pragma " + space + where);
  if (one_of(space, {"omp", "STDC", "once", "pack", "message", "unroll", "ivdep"}))
    return std::nullopt;
  if (space == "GCC") {
    if (tokens.size() < 2) return not_listed("#pragma GCC" + where);
    return gcc_pragma(tokens[1]->text, where);
  }
  if (space == "redefine_extname")
    return "#pragma redefine_extname" + where +
           " renames a symbol (it could call any library function under another name)";
  if (space == "weak") return "#pragma weak" + where + " declares weak symbols or aliases";
  return not_listed("#pragma " + space + where);
}

}  // namespace hpcreward::source_checks
