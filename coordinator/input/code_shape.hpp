#pragma once
// What a piece of a model's answer is as C or CUDA C++, read with a small lexer of its own
// (comments, string and character literals, raw strings, preprocessor lines): where it
// defines the entry point, and whether the whole of it is code and nothing else. It only
// decides which text is the candidate; the rank lexes and parses the chosen code again with
// the real checks (bench_node/source_checks), so nothing here is a rule of the harness.
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward {

inline constexpr std::string_view kEntryPointName = "matmul";

struct CodeShape {
  // Lines (1-based in the text) where a definition of the entry point starts: `matmul`, a
  // parameter list and `{`, outside any function, struct or class body (an `extern "C" {` or
  // namespace block does not count as one), never in a comment, a literal or a directive.
  // A call, a prototype ending in `;` or a member of a struct is not a definition.
  std::vector<int> definition_lines;
  bool mentions_entry = false;  // `matmul` as an identifier outside comments and literals
  // Why the text is not code alone ("line 3 reads as prose"); empty when every line is code,
  // comments and literals end, and braces, brackets and parentheses balance.
  std::string not_code;
};

CodeShape read_code_shape(std::string_view text);

}  // namespace hpcreward
