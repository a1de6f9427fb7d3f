#pragma once
// Turns what a trainer sent (`source`, or raw model output in `completion`) into the C or
// CUDA code to benchmark, or a format_error verdict that says what was wrong. An answer is
// read as models write it (docs/guide.md, "Candidate input"):
//   - reasoning sections are not read: <think>, <thinking>, <reasoning>, <reflection>,
//     <scratchpad> (any case) and <|begin_of_thought|>, each to its closing tag. One left open
//     runs to the end; a closing tag with no opening one before it (the chat template opened
//     the section in the prompt) makes everything before it reasoning. Tags inside a fenced
//     block are code, not tags;
//   - the candidate is the one fenced block (``` or ~~~, any language tag) that defines
//     `matmul` (code_shape.hpp): blocks that only build, declare or call it are not judged;
//   - an answer with no fenced block is taken whole when it is code and nothing else and
//     defines `matmul`;
//   - anything else (no definition, two blocks that define it, prose without a block) is a
//     format_error that names the blocks it saw: guessing which one the model meant would
//     reward a program other than the one it gave as its answer.
#include <string>
#include <string_view>
#include <variant>

#include "common/problem.hpp"
#include "common/status.hpp"

namespace hpcreward {

inline constexpr std::size_t kDefaultMaxSourceBytes = 64 * 1024;

struct ExtractedCode {
  std::string code;
  // Which part of the answer `code` is, for the model's feedback, without a full stop:
  // "block 2 of 3 (```c, lines 14-60), the one that defines matmul; not read: the reasoning
  // (think, lines 1-12)". Empty for a plain source.
  std::string judged;
};

// The code of a model's answer (see above). `language` only names the fence tag to use in
// reasons (```c or ```cuda).
std::variant<ExtractedCode, Verdict> extract_from_completion(std::string_view completion, Language language);

// A `source` (code as sent, e.g. a multi-turn tool call's argument) is its own code, unless
// its first line that is not blank opens a fence, which no C or CUDA file can: then it is
// read as a completion, so a fenced tool argument is its block's code.
std::variant<ExtractedCode, Verdict> code_from_source(std::string_view source, Language language);

// Checks that a source is usable text: not empty, no NUL bytes, valid UTF-8, within
// `max_bytes`, and names the `matmul` entry point.
Verdict check_source_text(std::string_view source, std::size_t max_bytes = kDefaultMaxSourceBytes);

}  // namespace hpcreward
