#include "bench_node/source_checks/include_policy.hpp"

#include <algorithm>

namespace hpcreward::source_checks {

const std::vector<std::string_view> &allowed_headers() {
  static const std::vector<std::string_view> headers = {
      "stddef.h",    "stdint.h",    "stdlib.h",    "string.h",    "math.h",      "float.h",
      "limits.h",    "stdbool.h",   "stdalign.h",  "omp.h",       "immintrin.h", "xmmintrin.h",
      "emmintrin.h", "pmmintrin.h", "tmmintrin.h", "smmintrin.h", "nmmintrin.h"};
  return headers;
}

bool allowed_header(std::string_view name) {
  const auto &headers = allowed_headers();
  return std::find(headers.begin(), headers.end(), name) != headers.end();
}

std::string allowed_headers_text() {
  std::string text;
  for (std::string_view header : allowed_headers()) {
    if (!text.empty()) text += " ";
    text += header;
  }
  return text;
}

std::optional<std::string> include_refusal(const Directive &directive) {
  const std::string at = " at line " + std::to_string(directive.line);
  const std::string allowed = " (allowed: " + allowed_headers_text() + ")";
  if (directive.name != "include") return "#" + directive.name + at + " is refused" + allowed;
  if (directive.operands.empty() || directive.operands[0]->kind != TokenKind::header_name)
    return "computed #include" + at + " is refused" + allowed;
  const std::string &spelled = directive.operands[0]->text;
  const std::string shown = "#include " + spelled + at;
  if (spelled.size() < 2 || spelled.front() != '<' || spelled.back() != '>')
    return shown + ": quoted includes are refused" + allowed;
  const std::string name = spelled.substr(1, spelled.size() - 2);
  if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos)
    return shown + ": paths are refused" + allowed;
  if (!allowed_header(name)) return shown + " is not on the allow-list" + allowed;
  if (directive.operands.size() > 1) return shown + ": unexpected tokens after the header name";
  return std::nullopt;
}

}  // namespace hpcreward::source_checks
