#pragma once
// Candidates given again to a resumed run, and the rows its log already holds for them
// (file mode, and a served batch retried after a restart): a candidate with a logged row
// gets that row and is not scored again, so every candidate is logged exactly once across
// restarts; the rest of a batch a crash cut short goes on in the stage its logged rows had.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "coordinator/input/candidate_input.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

// For each candidate, the logged row that accounts for it, or null. Each logged row accounts
// for one candidate with its id, in input order.
std::vector<const RewardRow *> match_logged(const std::vector<PreparedCandidate> &candidates,
                                            const std::vector<RewardRow> &logged);

// What the log holds of a batch: candidates [begin, end), `logged_row` as match_logged gives it.
struct LoggedPart {
  bool any = false;  // some candidate has its row
  bool all = true;   // every candidate has its row
  // Per problem, the stage its logged rows ran in (rows of candidates that named none).
  std::map<std::string, std::string> stages;
};
LoggedPart logged_part(const std::vector<PreparedCandidate> &candidates, std::size_t begin, std::size_t end,
                       const std::vector<const RewardRow *> &logged_row);

}  // namespace hpcreward
