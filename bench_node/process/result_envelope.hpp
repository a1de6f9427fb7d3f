#pragma once
// What the runner writes to its result pipe: one JSON object {"token", "measurement"}.
// The token is a random value the rank hands the runner through a private pipe before
// the candidate is loaded; a candidate that forges a result on the pipe without it is
// caught. (It is in the runner's memory while the candidate runs, so this stops blind
// forgery, not a candidate that searches memory; the seccomp filter closes that.)
#include <optional>
#include <string>

#include "common/messages.hpp"

namespace hpcreward {

std::string encode_result(const std::string &token, const Measurement &measurement);

struct DecodedResult {
  std::string token;
  Measurement measurement;
};

// nullopt unless `text` is exactly one well-formed envelope.
std::optional<DecodedResult> decode_result(const std::string &text);

// 32 hex digits from the kernel's random source.
std::string make_token();

}  // namespace hpcreward
