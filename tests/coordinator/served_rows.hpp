#pragma once
// The row a fake scorer answers for a served candidate: ok in o0 with the given reward.
#include "common/sha256.hpp"
#include "coordinator/input/candidate_input.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

inline RewardRow ok_row_for(const PreparedCandidate &c, double reward = 0.0) {
  RewardRow row;
  row.candidate_id = c.id;
  row.batch_id = c.batch_id;
  row.problem = c.problem;
  row.stage = "o0";
  row.status = "ok";
  row.reward = reward;
  row.source_sha256 = c.code.empty() ? "" : sha256_hex(c.code);
  return row;
}

}  // namespace hpcreward
