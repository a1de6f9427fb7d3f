#include "coordinator/scoring/logged_rows.hpp"

namespace hpcreward {

std::vector<const RewardRow *> match_logged(const std::vector<PreparedCandidate> &candidates,
                                            const std::vector<RewardRow> &logged) {
  std::map<std::string, std::vector<const RewardRow *>> by_id;
  for (const RewardRow &row : logged) by_id[row.candidate_id].push_back(&row);
  std::vector<const RewardRow *> matched(candidates.size(), nullptr);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto it = by_id.find(candidates[i].id);
    if (it == by_id.end() || it->second.empty()) continue;
    matched[i] = it->second.front();
    it->second.erase(it->second.begin());
  }
  return matched;
}

LoggedPart logged_part(const std::vector<PreparedCandidate> &candidates, std::size_t begin, std::size_t end,
                       const std::vector<const RewardRow *> &logged_row) {
  LoggedPart part;
  for (std::size_t i = begin; i < end; ++i) {
    const RewardRow *row = logged_row[i];
    if (!row) {
      part.all = false;
      continue;
    }
    part.any = true;
    if (!candidates[i].stage_named && !row->stage.empty()) part.stages.emplace(candidates[i].problem, row->stage);
  }
  return part;
}

}  // namespace hpcreward
