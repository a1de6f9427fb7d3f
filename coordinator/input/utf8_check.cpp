#include "coordinator/input/utf8_check.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace hpcreward {
namespace {

using nlohmann::json;

// Length of the well-formed UTF-8 sequence at text[i] (Unicode table 3-7), 0 if there is none.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) -> unsigned { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0x100; };
  auto in = [](unsigned b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; };
  const unsigned lead = byte(0);
  if (lead < 0x80) return 1;
  if (in(lead, 0xC2, 0xDF)) return in(byte(1), 0x80, 0xBF) ? 2 : 0;
  if (in(lead, 0xE0, 0xEF)) {
    const unsigned lo = lead == 0xE0 ? 0xA0 : 0x80, hi = lead == 0xED ? 0x9F : 0xBF;  // no overlongs, no surrogates
    return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xBF) ? 3 : 0;
  }
  if (in(lead, 0xF0, 0xF4)) {
    const unsigned lo = lead == 0xF0 ? 0x90 : 0x80, hi = lead == 0xF4 ? 0x8F : 0xBF;  // U+10000 to U+10FFFF
    return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xBF) && in(byte(3), 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

// A noncharacter that stands in for the first bad byte while the body is parsed to find its field.
constexpr std::string_view kMarker = "\xEF\xB7\x90";  // U+FDD0
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// `text` with each ill-formed byte replaced: the one at `marked` by kMarker, the others by U+FFFD.
std::string replace_invalid(std::string_view text, std::size_t marked) {
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    if (std::size_t n = sequence_length(text, i)) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out.append(i == marked ? kMarker : kReplacement);
      ++i;
    }
  }
  return out;
}

bool marked(const std::string &text) { return text.find(kMarker) != std::string::npos; }

// The path to the string holding the marker, in the endpoint's error style:
// "batch_id", candidates[3]."source", query[1]; `in_key`: the marker is in an object key.
std::optional<std::string> find_marker(const json &value, const std::string &path, bool *in_key) {
  if (value.is_string()) return marked(value.get_ref<const std::string &>()) ? std::optional(path) : std::nullopt;
  if (value.is_array()) {
    const std::string base = path.size() > 2 && path.front() == '"' && path.find('"', 1) == path.size() - 1
                                 ? path.substr(1, path.size() - 2)  // a top-level "query" becomes query[1]
                                 : path;
    for (std::size_t i = 0; i < value.size(); ++i)
      if (auto found = find_marker(value[i], base + "[" + std::to_string(i) + "]", in_key)) return found;
  }
  if (value.is_object())
    for (const auto &[key, item] : value.items()) {
      const std::string child = (path.empty() ? "" : path + ".") + "\"" + key + "\"";
      if (marked(key)) {
        *in_key = true;
        return path;
      }
      if (auto found = find_marker(item, child, in_key)) return found;
    }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

std::string describe_invalid_utf8(std::string_view body, std::size_t offset) {
  const std::string at = " (byte " + std::to_string(offset) + " of the body, counting from 0)";
  const std::string fix = ": JSON must be UTF-8 (escapes such as \\u00e9 are fine)";
  if (body.find(kMarker) == std::string_view::npos) {
    json value = json::parse(replace_invalid(body, offset), nullptr, /*allow_exceptions=*/false);
    bool in_key = false;
    if (!value.is_discarded())
      if (std::optional<std::string> path = find_marker(value, "", &in_key)) {
        if (in_key) return "a key in " + (path->empty() ? std::string("the body") : *path) + " is not valid UTF-8" + at + fix;
        return *path + " is not valid UTF-8" + at + fix;
      }
  }
  return "the body is not valid UTF-8 at byte " + std::to_string(offset) + " (counting from 0)" + fix;
}

std::string printable_utf8(std::string_view text) { return replace_invalid(text, std::string_view::npos); }

}  // namespace hpcreward
