#include "coordinator/input/code_extraction.hpp"

#include <vector>

namespace hpcreward {
namespace {

struct Fence {
  std::size_t body_begin;
  std::size_t body_end;
};

bool is_fence_line(std::string_view line, std::string_view *marker) {
  std::size_t indent = 0;
  while (indent < line.size() && indent < 3 && line[indent] == ' ') ++indent;
  std::string_view rest = line.substr(indent);
  for (std::string_view candidate : {"```", "~~~"}) {
    if (rest.starts_with(candidate)) {
      *marker = candidate;
      return true;
    }
  }
  return false;
}

// Splits the text into fenced blocks (CommonMark-style: a fence opens a block, the next
// fence of the same kind closes it; an unclosed block runs to the end of the text).
std::vector<Fence> find_fences(std::string_view text) {
  std::vector<Fence> fences;
  std::string_view open_marker;
  std::size_t body_begin = 0;
  bool inside = false;
  std::size_t position = 0;
  while (position <= text.size()) {
    std::size_t end = text.find('\n', position);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(position, end - position);
    std::string_view marker;
    if (is_fence_line(line, &marker)) {
      if (!inside) {
        inside = true;
        open_marker = marker;
        body_begin = std::min(end + 1, text.size());
      } else if (marker == open_marker) {
        inside = false;
        fences.push_back({body_begin, position});
      }
    }
    if (end == text.size()) break;
    position = end + 1;
  }
  if (inside) fences.push_back({body_begin, text.size()});
  return fences;
}

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// `matmul` as a whole identifier (not `my_matmul`). The real entry-point check is the
// symbol lookup on the compiled object; this one only gives an early, clear answer.
bool mentions_matmul(std::string_view code) {
  constexpr std::string_view kName = "matmul";
  for (std::size_t at = code.find(kName); at != std::string_view::npos;
       at = code.find(kName, at + 1)) {
    const bool starts = at == 0 || !is_identifier_char(code[at - 1]);
    const std::size_t after = at + kName.size();
    const bool ends = after == code.size() || !is_identifier_char(code[after]);
    if (starts && ends) return true;
  }
  return false;
}

bool valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xe ? 3
                                                               : (byte >> 3) == 0x1e ? 4 : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t j = 1; j < length; ++j)
      if ((static_cast<unsigned char>(text[i + j]) >> 6) != 0x2) return false;
    i += length;
  }
  return true;
}

}  // namespace

std::variant<std::string, Verdict> extract_from_completion(std::string_view completion) {
  const std::vector<Fence> fences = find_fences(completion);
  if (fences.empty())
    return Verdict{Status::format_error, "completion has no fenced code block (```c ... ```)"};
  std::vector<std::string_view> with_entry;
  for (const Fence &fence : fences) {
    std::string_view body = completion.substr(fence.body_begin, fence.body_end - fence.body_begin);
    if (mentions_matmul(body)) with_entry.push_back(body);
  }
  if (with_entry.empty())
    return Verdict{Status::format_error, "no fenced code block in the completion defines matmul"};
  if (with_entry.size() > 1)
    return Verdict{Status::format_error,
                   std::to_string(with_entry.size()) +
                       " fenced code blocks mention matmul; send exactly one"};
  return std::string(with_entry.front());
}

Verdict check_source_text(std::string_view source, std::size_t max_bytes) {
  if (source.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return {Status::format_error, "source is empty"};
  if (source.size() > max_bytes)
    return {Status::format_error, "source is " + std::to_string(source.size()) +
                                      " bytes; the limit is " + std::to_string(max_bytes)};
  if (source.find('\0') != std::string_view::npos)
    return {Status::format_error, "source is not text (contains NUL bytes)"};
  if (!valid_utf8(source)) return {Status::format_error, "source is not valid UTF-8 text"};
  if (!mentions_matmul(source))
    return {Status::format_error, "source has no matmul entry point"};
  return {};
}

}  // namespace hpcreward
