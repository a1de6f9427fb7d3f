#pragma once
// Request bodies must be UTF-8 (RFC 8259). Finds the first byte that is not, and names the
// JSON field it sits in, so that a client gets a 400 that says what to fix (never a 500 from
// echoing the bytes back: nlohmann's dump throws on invalid UTF-8).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hpcreward {

// Offset of the first byte of `text` that does not start (or continue) a well-formed UTF-8
// sequence (overlong forms, surrogates and code points past U+10FFFF included); nullopt: valid.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// Why `body` (which is not valid UTF-8) is refused: the field holding the first bad byte when
// the rest of the body is JSON ("candidates[3].\"source\" is not valid UTF-8 ..."), else the
// byte offset. Never contains the bad bytes themselves.
std::string describe_invalid_utf8(std::string_view body, std::size_t offset);

// `text` with each ill-formed byte replaced by U+FFFD, for echoing client input in messages.
std::string printable_utf8(std::string_view text);

}  // namespace hpcreward
