#pragma once
// Rows as text for other tools: CSV (a header line of column names, then one line per row)
// or JSON Lines (one object per row). Columns and keys are the RewardRow member names, in
// the order of /rewards.
#include <ostream>
#include <vector>

#include "results/reward_row.hpp"

namespace hpcreward {

void write_csv(std::ostream &out, const std::vector<RewardRow> &rows);
void write_jsonl(std::ostream &out, const std::vector<RewardRow> &rows);

}  // namespace hpcreward
