#pragma once
// What the model is told about one scored candidate, beside the row's `reason` (written for an
// operator): what went wrong in terms it can act on (the compiler's first errors with their lines,
// the stage rule broken and what the stage wants instead, where a wrong answer was seen against
// which tolerance, the time limit) or, for `ok`, the GFLOPS, the fraction of the fastest library
// and the techniques detected. Bounded, and scrubbed of harness internals that would help an
// attacker or mean nothing to a model: paths, addresses, pids, seeds, options, the watchdog's
// arithmetic.
#include <string>
#include <string_view>

#include "common/problem.hpp"
#include "common/yardsticks.hpp"
#include "stages/ladder_config.hpp"

namespace hpcreward::prompts {

inline constexpr std::size_t kMaxFeedbackBytes = 512;  // the log's column

struct FeedbackInputs {
  std::string_view status;  // a Status name
  std::string_view reason;  // the whole reason, as the rank or coordinator gave it
  const Problem *problem = nullptr;  // null when the candidate named no known problem
  const StageSpec *stage = nullptr;  // null when it named no known stage
  double gflops = 0;
  Yardsticks yardsticks;
  std::string_view techniques;  // the row's columns: "openmp+avx512" / "plain" / ""
  std::string_view loop_order;
  std::string_view tile_sizes;
};

std::string model_feedback(const FeedbackInputs &inputs);

// The feedback on a candidate taken from a model's answer, opened with which part of the
// answer was judged: "Judged block 2 of 3 (```c, lines 14-60), the one that defines matmul. "
// then `feedback`, within kMaxFeedbackBytes (the feedback's end is cut to fit, never the note).
// `judged` empty: `feedback` as it is.
std::string with_judged_part(std::string_view judged, std::string_view feedback);
// `feedback` without the note with_judged_part put before it: the measurement's own feedback,
// which a row that reuses the measurement opens with its own note.
std::string_view without_judged_part(std::string_view feedback);

// `reason` without what a model must not or need not see (paths to their last part, addresses,
// pids, seeds, --options).
std::string scrubbed(std::string_view reason);

}  // namespace hpcreward::prompts
