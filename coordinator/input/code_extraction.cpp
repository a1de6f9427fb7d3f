#include "coordinator/input/code_extraction.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "coordinator/input/code_shape.hpp"
#include "coordinator/input/utf8_check.hpp"

namespace hpcreward {
namespace {

struct ReasoningTag {
  std::string_view open;
  std::string_view close;
};

// The tags models and chat templates put around reasoning (DeepSeek-R1, Qwen3 and QwQ write
// <think>; Sky-T1 and OpenThoughts <|begin_of_thought|>; the others are common in prompts).
constexpr ReasoningTag kReasoningTags[] = {
    {"<think>", "</think>"},           {"<thinking>", "</thinking>"},     {"<reasoning>", "</reasoning>"},
    {"<reflection>", "</reflection>"}, {"<scratchpad>", "</scratchpad>"}, {"<|begin_of_thought|>", "<|end_of_thought|>"},
};

struct Section {
  std::string_view tag;  // its opening tag
  int first_line = 0;
  int last_line = 0;
  bool closed = false;
};

struct Block {
  std::size_t body_begin = 0;
  std::size_t body_end = 0;
  int first_line = 0;  // of the opening fence
  int last_line = 0;   // of the closing fence, or the text's last line when it never closes
  std::string fence;   // "```c", "~~~", as the reasons show it
  char marker = '`';
  std::size_t marker_length = 3;
};

// A completion split as a reader sees it: fenced blocks and reasoning sections outside each
// other, and the visible text (reasoning left out, its newlines kept so lines still count
// as in the completion).
struct Answer {
  std::vector<Block> blocks;
  std::vector<Section> reasoning;
  std::string visible;
};

bool matches_at(std::string_view text, std::size_t at, std::string_view tag) {
  if (at + tag.size() > text.size()) return false;
  for (std::size_t i = 0; i < tag.size(); ++i) {
    char c = text[at + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != tag[i]) return false;
  }
  return true;
}

struct TagAt {
  std::size_t at = std::string_view::npos;
  std::size_t tag = 0;  // index in kReasoningTags
  bool closing = false;
};

// The first opening or closing reasoning tag in [begin, end).
TagAt first_tag(std::string_view text, std::size_t begin, std::size_t end) {
  for (std::size_t at = text.find('<', begin); at != std::string_view::npos && at < end; at = text.find('<', at + 1))
    for (std::size_t i = 0; i < std::size(kReasoningTags); ++i) {
      if (matches_at(text, at, kReasoningTags[i].open)) return {at, i, false};
      if (matches_at(text, at, kReasoningTags[i].close)) return {at, i, true};
    }
  return {};
}

// The language tag as a reason shows it: its first word, letters, digits and _+#- only.
std::string shown_tag(std::string_view info) {
  std::string tag;
  for (char c : info) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                         c == '+' || c == '#' || c == '-';
    if (!allowed || tag.size() == 16) break;
    tag += c;
  }
  return tag;
}

std::size_t fence_indent(std::string_view line) {
  std::size_t indent = 0;
  while (indent < line.size() && indent < 3 && line[indent] == ' ') ++indent;
  return indent;
}

// CommonMark: up to 3 spaces, then 3 or more ` or ~; a backtick fence's info has no backtick.
std::optional<Block> fence_opening(std::string_view line) {
  std::string_view rest = line.substr(fence_indent(line));
  if (rest.empty() || (rest.front() != '`' && rest.front() != '~')) return std::nullopt;
  const char marker = rest.front();
  const std::size_t length = std::min(rest.find_first_not_of(marker), rest.size());
  if (length < 3) return std::nullopt;
  std::string_view info = rest.substr(length);
  if (marker == '`' && info.find('`') != std::string_view::npos) return std::nullopt;
  info.remove_prefix(std::min(info.find_first_not_of(" \t"), info.size()));
  Block block;
  block.marker = marker;
  block.marker_length = length;
  block.fence = std::string(3, marker) + shown_tag(info);
  return block;
}

// The same marker, at least as long, and nothing after it but blanks.
bool fence_closing(std::string_view line, const Block &open) {
  std::string_view rest = line.substr(fence_indent(line));
  const std::size_t length = std::min(rest.find_first_not_of(open.marker), rest.size());
  return length >= open.marker_length && rest.substr(length).find_first_not_of(" \t\r") == std::string_view::npos;
}

Answer read_answer(std::string_view text) {
  enum class State { outside, fence, reasoning };
  Answer answer;
  State state = State::outside;
  Block block;
  Section section;
  std::size_t section_tag = 0;
  int line = 1;
  for (std::size_t position = 0;; ++line) {
    const std::size_t line_end = std::min(text.find('\n', position), text.size());
    // A line is read in segments: a reasoning tag can open or close inside it.
    for (std::size_t segment = position;;) {
      if (state == State::reasoning) {
        const std::string_view close = kReasoningTags[section_tag].close;
        std::size_t at = segment;
        while (at < line_end && !matches_at(text, at, close)) ++at;
        if (at >= line_end) break;
        section.last_line = line;
        section.closed = true;
        answer.reasoning.push_back(section);
        state = State::outside;
        segment = at + close.size();
        continue;
      }
      const std::string_view rest = text.substr(segment, line_end - segment);
      if (state == State::fence) {
        if (fence_closing(rest, block)) {
          block.body_end = position;
          block.last_line = line;
          answer.blocks.push_back(block);
          state = State::outside;
        }
        answer.visible += rest;
        break;
      }
      if (std::optional<Block> opening = fence_opening(rest)) {
        block = *opening;
        block.first_line = line;
        block.body_begin = std::min(line_end + 1, text.size());
        state = State::fence;
        answer.visible += rest;
        break;
      }
      const TagAt tag = first_tag(text, segment, line_end);
      if (tag.at == std::string_view::npos) {
        answer.visible += rest;
        break;
      }
      answer.visible += text.substr(segment, tag.at - segment);
      const ReasoningTag &kind = kReasoningTags[tag.tag];
      if (!tag.closing) {
        section = {kind.open, line, line, false};
        section_tag = tag.tag;
        state = State::reasoning;
        segment = tag.at + kind.open.size();
        continue;
      }
      if (answer.reasoning.empty()) {
        // Closed but never opened: the template opened it in the prompt, so all before is reasoning.
        answer.blocks.clear();
        answer.visible.assign(static_cast<std::size_t>(std::count(answer.visible.begin(), answer.visible.end(), '\n')),
                              '\n');
        answer.reasoning.push_back({kind.open, 1, line, true});
      } else {
        answer.visible += kind.close;  // a second stray closing tag is left as text
      }
      segment = tag.at + kind.close.size();
    }
    if (line_end >= text.size()) break;
    answer.visible += '\n';
    position = line_end + 1;
  }
  if (text.ends_with('\n') && line > 1) --line;  // the empty line after the last newline is none
  if (state == State::fence) {
    block.body_end = text.size();
    block.last_line = line;
    answer.blocks.push_back(block);
  } else if (state == State::reasoning) {
    section.last_line = line;
    answer.reasoning.push_back(section);
  }
  return answer;
}

std::string lines_text(int first, int last) {
  return first == last ? "line " + std::to_string(first) : "lines " + std::to_string(first) + "-" + std::to_string(last);
}

std::string block_text(const Block &block, std::size_t number) {
  return "block " + std::to_string(number) + " (" + block.fence + ", " + lines_text(block.first_line, block.last_line) +
         ")";
}

// A tag by its name, without the brackets: a reason or feedback that quotes a tag would open a
// reasoning section in any text that holds it later (a conversation, a query with its prompt).
std::string tag_name(std::string_view tag) {
  std::string name;
  for (char c : tag)
    if (c != '<' && c != '>' && c != '|') name += c;
  return name;
}

// "the reasoning (think, lines 1-12)", or "" when there was none.
std::string reasoning_text(const std::vector<Section> &sections) {
  if (sections.empty()) return "";
  std::string text = "the reasoning (";
  for (std::size_t i = 0; i < sections.size() && i < 3; ++i)
    text += (i ? "; " : "") + tag_name(sections[i].tag) + ", " + lines_text(sections[i].first_line, sections[i].last_line) +
            (sections[i].closed ? "" : ", never closed");
  if (sections.size() > 3) text += "; " + std::to_string(sections.size() - 3) + " more";
  return text + ")";
}

std::string listed(const std::vector<std::string> &items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i)
    text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return text;
}

std::string fence_hint(Language language) {
  return language == Language::cuda ? "```cuda ... ```" : "```c ... ```";
}

Verdict format_error(std::string reason) { return {Status::format_error, std::move(reason)}; }

std::variant<ExtractedCode, Verdict> raw_code(const Answer &answer, Language language) {
  const std::string &text = answer.visible;
  const std::string reasoning = reasoning_text(answer.reasoning);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return format_error(reasoning.empty()
                            ? "the completion is empty"
                            : "the completion is only reasoning, " + reasoning +
                                  ", which is not read: put the answer after it in one fenced block (" +
                                  fence_hint(language) + ")");
  const CodeShape shape = read_code_shape(text);
  if (!shape.not_code.empty() || shape.definition_lines.empty())
    return format_error("the completion has no fenced code block and is not code alone (" +
                        (shape.not_code.empty() ? "it defines no matmul" : shape.not_code) +
                        (reasoning.empty() ? "" : "; " + reasoning + " is not read") +
                        "): answer with the code in one fenced block (" + fence_hint(language) + ")");
  int first = 1, last = 1, line = 1;
  bool seen = false;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n') {
      ++line;
      continue;
    }
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '\r') continue;
    if (!seen) first = line;
    seen = true;
    last = line;
  }
  return ExtractedCode{text, "the whole answer as code (no fenced block, " + lines_text(first, last) + ")" +
                                 (reasoning.empty() ? "" : "; not read: " + reasoning)};
}

}  // namespace

std::variant<ExtractedCode, Verdict> extract_from_completion(std::string_view completion, Language language) {
  const Answer answer = read_answer(completion);
  if (answer.blocks.empty()) return raw_code(answer, language);
  const std::string reasoning = reasoning_text(answer.reasoning);
  const std::string not_read = reasoning.empty() ? "" : "; not read: " + reasoning;
  std::vector<std::size_t> defining, mentioning;
  for (std::size_t i = 0; i < answer.blocks.size(); ++i) {
    const Block &block = answer.blocks[i];
    const CodeShape shape = read_code_shape(completion.substr(block.body_begin, block.body_end - block.body_begin));
    if (!shape.definition_lines.empty()) defining.push_back(i);
    else if (shape.mentions_entry) mentioning.push_back(i);
  }
  const std::size_t count = answer.blocks.size();
  auto described = [&](const std::vector<std::size_t> &which) {
    std::vector<std::string> items;
    for (std::size_t i : which) items.push_back(block_text(answer.blocks[i], i + 1));
    return listed(items);
  };
  if (defining.size() > 1)
    return format_error(std::to_string(defining.size()) + " fenced code blocks define matmul, " + described(defining) +
                        ": keep only the one that is your answer");
  if (defining.empty())
    return format_error(
        "no fenced code block defines matmul (a definition: its signature, then its body in braces)" +
        (mentioning.empty() ? std::string()
                            : "; " + described(mentioning) + (mentioning.size() == 1 ? " uses" : " use") +
                                  " it without defining it") +
        not_read);
  const std::size_t chosen = defining.front();
  const Block &block = answer.blocks[chosen];
  ExtractedCode extracted;
  extracted.code = std::string(completion.substr(block.body_begin, block.body_end - block.body_begin));
  extracted.judged = "block " + std::to_string(chosen + 1) + " of " + std::to_string(count) + " (" + block.fence + ", " +
                     lines_text(block.first_line, block.last_line) + "), the one that defines matmul" + not_read;
  return extracted;
}

std::variant<ExtractedCode, Verdict> code_from_source(std::string_view source, Language language) {
  const std::size_t first = source.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos) {
    const std::size_t line_begin = source.rfind('\n', first) == std::string_view::npos ? 0 : source.rfind('\n', first) + 1;
    const std::string_view line = source.substr(line_begin, source.find('\n', first) - line_begin);
    if (fence_opening(line)) return extract_from_completion(source, language);
  }
  return ExtractedCode{std::string(source), ""};
}

Verdict check_source_text(std::string_view source, std::size_t max_bytes) {
  if (source.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return {Status::format_error, "source is empty"};
  if (source.size() > max_bytes)
    return {Status::format_error, "source is " + std::to_string(source.size()) +
                                      " bytes; the limit is " + std::to_string(max_bytes)};
  if (source.find('\0') != std::string_view::npos)
    return {Status::format_error, "source is not text (contains NUL bytes)"};
  if (first_invalid_utf8(source)) return {Status::format_error, "source is not valid UTF-8 text"};
  if (!read_code_shape(source).mentions_entry) return {Status::format_error, "source has no matmul entry point"};
  return {};
}

}  // namespace hpcreward
