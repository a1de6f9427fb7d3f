#pragma once
// Turns what a trainer sent (`source`, or raw model output in `completion`) into the C
// code to benchmark, or a format_error verdict that says what was wrong.
#include <string>
#include <string_view>
#include <variant>

#include "common/status.hpp"

namespace hpcreward {

inline constexpr std::size_t kDefaultMaxSourceBytes = 64 * 1024;

// The code of the one fenced block (``` or ~~~, any language tag) that mentions
// `matmul`. No block, or several that mention it, is a format error: guessing which
// one the model meant would reward a different program than the one it wrote.
std::variant<std::string, Verdict> extract_from_completion(std::string_view completion);

// Checks that a source is usable text: not empty, no NUL bytes, valid UTF-8, within
// `max_bytes`, and names the `matmul` entry point.
Verdict check_source_text(std::string_view source, std::size_t max_bytes = kDefaultMaxSourceBytes);

}  // namespace hpcreward
