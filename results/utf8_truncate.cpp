#include "results/utf8_truncate.hpp"

namespace hpcreward {

namespace {
bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
}  // namespace

std::string_view truncate_utf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  // text[max_bytes] is the first byte dropped. If it continues a character, that
  // character started at most 3 bytes earlier (UTF-8 encodes at most 4 bytes): drop it whole.
  std::size_t end = max_bytes;
  for (int step = 0; step < 3 && end > 0 && is_continuation_byte(text[end]); ++step) --end;
  if (is_continuation_byte(text[end])) end = max_bytes;  // not UTF-8: plain byte cut
  return text.substr(0, end);
}

}  // namespace hpcreward
