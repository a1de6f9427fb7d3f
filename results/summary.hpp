#pragma once
// The human summary of a run: per problem and stage, how many candidates, each status,
// and the best and median GFLOPS of the verified ones.
#include <string>
#include <vector>

#include "results/reward_row.hpp"

namespace hpcreward {

std::string format_summary(const std::vector<RewardRow> &rows);

}  // namespace hpcreward
