#pragma once
// Length-prefixed messages between the rank and a child that serves one run after another
// (the GPU rank's persistent measurers, bench_node/gpu/README.md): the payload's length in 4
// bytes (host order: both ends are on one machine), then the payload. A JSON text may hold
// any byte, so no separator would do.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace hpcreward {

inline std::string frame(std::string_view payload) {
  const auto length = static_cast<std::uint32_t>(payload.size());
  std::string framed(sizeof length, '\0');
  std::memcpy(framed.data(), &length, sizeof length);
  framed.append(payload);
  return framed;
}

// The first whole frame's payload, taken off the front of `buffer`; nullopt while it is
// incomplete. `too_long` is set (and nothing taken) when it announces more than `limit` bytes.
inline std::optional<std::string> take_frame(std::string &buffer, std::size_t limit, bool &too_long) {
  std::uint32_t length = 0;
  if (buffer.size() < sizeof length) return std::nullopt;
  std::memcpy(&length, buffer.data(), sizeof length);
  too_long = length > limit;
  if (too_long || buffer.size() < sizeof length + length) return std::nullopt;
  std::string payload = buffer.substr(sizeof length, length);
  buffer.erase(0, sizeof length + length);
  return payload;
}

}  // namespace hpcreward
