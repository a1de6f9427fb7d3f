#pragma once
// What the runner writes to its result pipe: one JSON object {"token", "measurement"}, and
// from a serving GPU measurer "phases" too (phase_times.hpp: a diagnostic, never a reward).
// The token is a random value the rank hands the runner through a private pipe before
// the candidate is loaded; a candidate that forges a result on the pipe without it is
// caught. (It is in the runner's memory while the candidate runs, so this stops blind
// forgery, not a candidate that searches memory; the seccomp filter closes that.)
#include <optional>
#include <string>

#include "bench_node/process/phase_times.hpp"
#include "common/messages.hpp"

namespace hpcreward {

std::string encode_result(const std::string &token, const Measurement &measurement, const PhaseSeconds &phases = {});

struct DecodedResult {
  std::string token;
  Measurement measurement;
  PhaseSeconds phases;  // empty when the envelope has none
};

// nullopt unless `text` is exactly one well-formed envelope.
std::optional<DecodedResult> decode_result(const std::string &text);

// 32 hex digits from the kernel's random source.
std::string make_token();

}  // namespace hpcreward
