#include "bench_node/source_checks/pragma_rules.hpp"

#include <string_view>

namespace hpcreward::source_checks {

namespace {

constexpr std::string_view kCodeGeneration = "changes code generation, which the stage's compiler flags control";

constexpr std::string_view kGccAllowed[] = {"GCC ivdep", "GCC unroll", "GCC diagnostic", "GCC warning",
                                            "GCC error"};

constexpr RefusedName kGccRefused[] = {
    {"GCC optimize", kCodeGeneration},
    {"GCC target", kCodeGeneration},
    {"GCC push_options", kCodeGeneration},
    {"GCC pop_options", kCodeGeneration},
    {"GCC reset_options", kCodeGeneration},
    {"GCC visibility", "changes which symbols the object exports"},
    {"redefine_extname", "renames a symbol (it could call any library function under another name)"},
    {"weak", "declares weak symbols or aliases"},
};

}  // namespace

std::span<const std::string_view> gcc_allowed_pragmas() { return kGccAllowed; }
std::span<const RefusedName> gcc_refused_pragmas() { return kGccRefused; }

std::optional<std::string> pragma_refusal(const std::vector<const Token *> &tokens, const std::string &where,
                                          const NameTable &table) {
  if (tokens.empty()) return std::nullopt;
  std::string name = tokens[0]->text;
  const bool named = tokens[0]->kind == TokenKind::identifier;
  if (named && name == "GCC" && tokens.size() > 1) name += " " + tokens[1]->text;
  const std::string shown = "#pragma " + name + where;
  if (named) {
    if (std::optional<std::string_view> why = refusal_reason(table, name)) return shown + " " + std::string(*why);
    if (allowed_name(table, name)) return std::nullopt;
  }
  return shown + " is not on the allow-list (allowed: " + allowed_names_text(table) + ")";
}

}  // namespace hpcreward::source_checks
