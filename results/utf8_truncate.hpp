#pragma once
// Cutting text to fit a fixed-length string field without splitting a UTF-8 character,
// so that a truncated reason is still valid UTF-8 for h5py, JSON and terminals.
#include <cstddef>
#include <string_view>

namespace hpcreward {

// The longest prefix of `text` that has at most `max_bytes` bytes and does not end inside
// a multi-byte UTF-8 character. Text that is not valid UTF-8 is cut at `max_bytes`.
std::string_view truncate_utf8(std::string_view text, std::size_t max_bytes);

}  // namespace hpcreward
