#include "bench_node/source_checks/include_rules.hpp"

#include <algorithm>

namespace hpcreward::source_checks {

namespace {

// "cute/atom/mma_atom.hpp": letters, digits and _-+. in parts separated by single '/', none
// empty, "." or "..", so an allowed family like cute/* (or C's every header) cannot reach out
// of the compiler's include directories.
bool plain_path(std::string_view name) {
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '-' || c == '+' || c == '.' || c == '/'))
      return false;  // no \\, blanks or control characters: a header's name, nothing else
  for (std::size_t begin = 0;;) {
    const std::size_t end = std::min(name.find('/', begin), name.size());
    const std::string_view part = name.substr(begin, end - begin);
    if (part.empty() || part == "." || part == "..") return false;
    if (end == name.size()) return true;
    begin = end + 1;
  }
}

// On the table's allow-list; a closed family's names only by an entry of their own.
bool listed(const IncludeTable &table, std::string_view name) {
  const bool closed = std::any_of(table.closed_families.begin(), table.closed_families.end(),
                                  [&](std::string_view prefix) { return name.starts_with(prefix); });
  if (!closed) return allowed_name(table.headers, name);
  return std::any_of(table.headers.allowed.begin(), table.headers.allowed.end(),
                     [&](std::string_view entry) { return entry != "*" && name_matches(entry, name); });
}

}  // namespace

bool header_allowed(const IncludeTable &table, std::string_view name) {
  return !refusal_reason(table.headers, name) && listed(table, name) && plain_path(name);
}

std::optional<std::string> include_refusal(const Directive &directive, const IncludeTable &table) {
  const std::string at = " at line " + std::to_string(directive.line);
  const std::string allowed = allowed_name(table.headers, "*")
                                  ? " (any header of the compiler's is allowed, by name: #include <stdio.h>)"
                                  : " (allowed: " + allowed_names_text(table.headers) + ")";
  if (directive.name != "include") return "#" + directive.name + at + " is refused" + allowed;
  if (directive.operands.empty() || directive.operands[0]->kind != TokenKind::header_name)
    return "computed #include" + at + " is refused" + allowed;
  const std::string &spelled = directive.operands[0]->text;
  const std::string shown = "#include " + spelled + at;
  const bool angled = spelled.size() >= 2 && spelled.front() == '<' && spelled.back() == '>';
  const bool quoted = spelled.size() >= 2 && spelled.front() == '"' && spelled.back() == '"';
  if (!angled && !(quoted && table.quoted)) return shown + ": quoted includes are refused" + allowed;
  const std::string name = spelled.substr(1, spelled.size() - 2);
  if (!table.paths && name.find_first_of("/\\") != std::string::npos)
    return shown + ": paths are refused" + allowed;
  if (directive.operands.size() > 1) return shown + ": unexpected tokens after the header name";
  if (std::optional<std::string_view> why = refusal_reason(table.headers, name))
    return shown + " is refused: " + std::string(*why);
  if (listed(table, name)) {
    if (plain_path(name)) return std::nullopt;
    return shown + " is refused: a header is named below the compiler's include directories (letters, "
                   "digits, _-+. and /; no empty, . or .. part)";
  }
  return shown + " is not on the allow-list" + allowed;
}

}  // namespace hpcreward::source_checks
