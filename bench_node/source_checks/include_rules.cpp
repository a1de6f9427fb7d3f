#include "bench_node/source_checks/include_rules.hpp"

namespace hpcreward::source_checks {

std::optional<std::string> include_refusal(const Directive &directive, const IncludeTable &table) {
  const std::string at = " at line " + std::to_string(directive.line);
  const std::string allowed = " (allowed: " + allowed_names_text(table.headers) + ")";
  if (directive.name != "include") return "#" + directive.name + at + " is refused" + allowed;
  if (directive.operands.empty() || directive.operands[0]->kind != TokenKind::header_name)
    return "computed #include" + at + " is refused" + allowed;
  const std::string &spelled = directive.operands[0]->text;
  const std::string shown = "#include " + spelled + at;
  if (spelled.size() < 2 || spelled.front() != '<' || spelled.back() != '>')
    return shown + ": quoted includes are refused" + allowed;
  const std::string name = spelled.substr(1, spelled.size() - 2);
  if (!table.paths && name.find_first_of("/\\") != std::string::npos)
    return shown + ": paths are refused" + allowed;
  if (directive.operands.size() > 1) return shown + ": unexpected tokens after the header name";
  if (std::optional<std::string_view> why = refusal_reason(table.headers, name))
    return shown + " is refused: " + std::string(*why);
  if (allowed_name(table.headers, name)) return std::nullopt;
  return shown + " is not on the allow-list" + allowed;
}

}  // namespace hpcreward::source_checks
