#include "coordinator/serving/logged_identity.hpp"

#include <algorithm>
#include <deque>

#include "common/sha256.hpp"

namespace hpcreward {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

LoggedIdentity identity_of(const RewardRow &row, std::set<std::string> &names) {
  LoggedIdentity identity;
  identity.candidate_id = row.candidate_id;
  identity.problem = &*names.insert(row.problem).first;
  identity.stage = &*names.insert(row.stage).first;
  if (!row.source_sha256.empty())
    identity.source = parse_sha256_hex(row.source_sha256, &identity.source_sha256) ? LoggedIdentity::Source::digest
                                                                                   : LoggedIdentity::Source::unreadable;
  return identity;
}

// Why this candidate is not the one its logged row was written for, or "".
std::string differs(const PreparedCandidate &candidate, const LoggedIdentity &logged) {
  if (*logged.problem != candidate.problem)
    return "candidate \"" + candidate.id + "\" was logged for problem " + *logged.problem + ", not " +
           candidate.problem;
  if (candidate.stage_named && *logged.stage != candidate.stage)
    return "candidate \"" + candidate.id + "\" was logged in stage " + *logged.stage + ", not " + candidate.stage;
  if (candidate.code.empty() || logged.source == LoggedIdentity::Source::none) return "";
  Sha256Digest digest;
  if (logged.source == LoggedIdentity::Source::unreadable || !parse_sha256_hex(sha256_hex(candidate.code), &digest) ||
      digest != logged.source_sha256)
    return "candidate \"" + candidate.id + "\" was logged with other code";
  return "";
}

}  // namespace

bool parse_sha256_hex(std::string_view hex, Sha256Digest *digest) {
  if (hex.size() != 2 * digest->size()) return false;
  for (std::size_t i = 0; i < digest->size(); ++i) {
    const int high = hex_value(hex[2 * i]), low = hex_value(hex[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    (*digest)[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return true;
}

void LoggedIdentities::add(const RewardRow &row, std::uint64_t log_index) {
  LoggedBatch &batch = batches_[row.batch_id];
  if (batch.rows.empty()) batch.range = {log_index, log_index + 1};
  batch.range = {std::min(batch.range.first, log_index), std::max(batch.range.end, log_index + 1)};
  batch.rows.push_back(identity_of(row, names_));
  ++rows_;
}

const LoggedBatch *LoggedIdentities::find(const std::string &batch_id) const {
  auto it = batches_.find(batch_id);
  return it == batches_.end() ? nullptr : &it->second;
}

void LoggedIdentities::erase(const std::string &batch_id) {
  auto it = batches_.find(batch_id);
  if (it == batches_.end()) return;
  rows_ -= it->second.rows.size();
  batches_.erase(it);
}

LoggedMatch match_logged_identities(const std::vector<PreparedCandidate> &candidates,
                                    const std::vector<LoggedIdentity> &logged) {
  LoggedMatch match;
  match.row_of.assign(candidates.size(), LoggedMatch::kNoRow);
  std::map<std::string_view, std::deque<std::size_t>> by_id;
  for (std::size_t i = 0; i < logged.size(); ++i) by_id[logged[i].candidate_id].push_back(i);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto it = by_id.find(candidates[i].id);
    if (it == by_id.end() || it->second.empty()) continue;
    const std::size_t row = it->second.front();
    it->second.pop_front();
    if (std::string why = differs(candidates[i], logged[row]); !why.empty()) {
      match.mismatch = std::move(why);
      return match;
    }
    match.row_of[i] = row;
    ++match.matched;
  }
  if (match.matched != logged.size())
    for (const auto &[id, left] : by_id)
      if (!left.empty()) {
        match.mismatch = "the log holds candidate \"" + std::string(id) + "\" of this batch, which this request lacks";
        break;
      }
  return match;
}

LoggedMatch match_logged_rows(const std::vector<PreparedCandidate> &candidates, const std::vector<RewardRow> &rows) {
  std::set<std::string> names;
  std::vector<LoggedIdentity> identities;
  identities.reserve(rows.size());
  for (const RewardRow &row : rows) identities.push_back(identity_of(row, names));
  return match_logged_identities(candidates, identities);
}

}  // namespace hpcreward
