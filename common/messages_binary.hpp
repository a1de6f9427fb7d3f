#pragma once
// Binary encoding of the two messages sent per candidate, BenchTask and BenchResult (the hello,
// RankInfo, stays JSON and the stop is empty: once per rank). Rank 0 encodes a task and decodes a
// result for every candidate, and as JSON texts these were two thirds of its instructions per
// candidate (docs/reports/dispatch.md, third round).
//
// Layout: 4 header bytes, 'H' 'R', the format version (kBinaryMessageVersion), the kind ('T' task,
// 'R' result); then the sequence (int64) so a rank can answer even a task it cannot decode;
// then every field of the struct in declaration order (byte_codec.hpp: little-endian integers,
// IEEE 754 doubles bit for bit, 32-bit length before each string and list). Enums travel as
// their names (status, precision, language), so renumbering an enum cannot shift their meaning.
// Doubles are not judged here: NaN and infinities arrive as sent and the coordinator's reward
// rules see exactly what the rank measured.
//
// Decoding is strict and throws MessageDecodeError (byte_codec.hpp) on a wrong header or version,
// a truncated field, a bad enum name or bool, or bytes left over; messages come from our own
// ranks, so any of these is a protocol error (mixed builds, a bug), never a candidate's doing.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/byte_codec.hpp"
#include "common/messages.hpp"

namespace hpcreward {

inline constexpr std::uint8_t kBinaryMessageVersion = 4;

std::string encode_task(const BenchTask &task);
BenchTask decode_task(std::string_view bytes);

std::string encode_result(const BenchResult &result);
BenchResult decode_result(std::string_view bytes);

// The sequence of a task message whose header is right, even when the rest does not decode
// (the rank answers such a task as malformed, under its sequence); nullopt otherwise.
std::optional<std::int64_t> peek_task_sequence(std::string_view bytes);

}  // namespace hpcreward
