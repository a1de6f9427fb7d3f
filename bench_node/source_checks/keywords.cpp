#include "bench_node/source_checks/keywords.hpp"

#include <algorithm>
#include <span>

namespace hpcreward::source_checks {

namespace {

constexpr std::string_view kC[] = {
    "auto",     "break",  "case",   "char",     "const",    "continue", "default",  "do",
    "double",   "else",   "enum",   "extern",   "float",    "for",      "goto",     "if",
    "inline",   "int",    "long",   "register", "restrict", "return",   "short",    "signed",
    "sizeof",   "static", "struct", "switch",   "typedef",  "union",    "unsigned", "void",
    "volatile", "while",  "asm",    "typeof",   "defined"};

constexpr std::string_view kCxxOnly[] = {
    "alignas",   "alignof",       "and",         "and_eq",    "bitand",   "bitor",
    "bool",      "catch",         "char8_t",     "char16_t",  "char32_t", "class",
    "co_await",  "co_return",     "co_yield",    "compl",     "concept",  "consteval",
    "constexpr", "constinit",     "const_cast",  "decltype",  "delete",   "dynamic_cast",
    "explicit",  "export",        "false",       "friend",    "mutable",  "namespace",
    "new",       "noexcept",      "not",         "not_eq",    "nullptr",  "operator",
    "or",        "or_eq",         "private",     "protected", "public",   "reinterpret_cast",
    "requires",  "static_assert", "static_cast", "template",  "this",     "thread_local",
    "throw",     "true",          "try",         "typeid",    "typename", "using",
    "virtual",   "wchar_t",       "xor",         "xor_eq"};

bool listed(std::span<const std::string_view> words, std::string_view name) {
  return std::find(words.begin(), words.end(), name) != words.end();
}

}  // namespace

bool c_keyword(std::string_view name) { return listed(kC, name); }
bool cxx_keyword(std::string_view name) { return listed(kCxxOnly, name); }

}  // namespace hpcreward::source_checks
