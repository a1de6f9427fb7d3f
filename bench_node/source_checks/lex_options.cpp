#include "bench_node/source_checks/lex_options.hpp"

#include <string_view>

namespace hpcreward::source_checks {

namespace {

bool starts(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

LexOptions lex_options(const std::vector<std::string> &stage_flags) {
  std::string_view standard = "gnu11";  // GccCompiler's
  bool trigraphs = false;
  for (const std::string &flag : stage_flags) {
    if (flag == "-trigraphs") trigraphs = true;
    if (flag == "-ansi") standard = "c90";
    if (starts(flag, "-std=")) standard = std::string_view(flag).substr(5);
  }
  LexOptions options;
  options.trigraphs = trigraphs || !starts(standard, "gnu");
  for (std::string_view c2x : {"c2x", "gnu2x", "c23", "gnu23", "iso9899:2023"})
    if (standard == c2x) options.digit_separators = true;
  return options;
}

}  // namespace hpcreward::source_checks
