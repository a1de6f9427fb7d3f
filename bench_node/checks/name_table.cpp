#include "bench_node/checks/name_table.hpp"

#include <algorithm>

namespace hpcreward {

bool name_matches(std::string_view pattern, std::string_view name) {
  if (pattern.ends_with('*')) return name.starts_with(pattern.substr(0, pattern.size() - 1));
  return name == pattern;
}

std::optional<std::string_view> refusal_reason(const NameTable &table, std::string_view name) {
  for (const RefusedName &refused : table.refused)
    if (name_matches(refused.pattern, name)) return refused.reason;
  return std::nullopt;
}

bool allowed_name(const NameTable &table, std::string_view name) {
  return std::any_of(table.allowed.begin(), table.allowed.end(),
                     [&](std::string_view pattern) { return name_matches(pattern, name); });
}

std::string allowed_names_text(const NameTable &table) {
  std::string text;
  for (std::string_view name : table.allowed) {
    if (!text.empty()) text += ", ";
    text += name;
  }
  return text;
}

}  // namespace hpcreward
