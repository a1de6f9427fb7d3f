#include "coordinator/scoring/repeat_sharing.hpp"

namespace hpcreward {

RepeatSharing::Route RepeatSharing::route(std::int64_t sequence, const std::string &key, std::uint64_t scope) {
  if (sharing()) {
    if (const CachedMeasurement *earlier = cache_.find(key)) return {Route::reuse, earlier};
    auto [first, inserted] = measured_for_.emplace(std::make_pair(scope, key), sequence);
    if (!inserted) {
      waiting_[first->second].push_back(sequence);
      return {Route::wait, nullptr};
    }
  }
  key_of_.emplace(sequence, key);
  return {Route::measure, nullptr};
}

RepeatSharing::Answered RepeatSharing::answered(std::int64_t sequence) {
  Answered answer;
  auto key = key_of_.find(sequence);
  answer.key = key->second;
  key_of_.erase(key);
  if (auto waiting = waiting_.find(sequence); waiting != waiting_.end()) {
    answer.waiting = std::move(waiting->second);
    waiting_.erase(waiting);
  }
  return answer;
}

std::size_t RepeatSharing::waiting() const {
  std::size_t count = 0;
  for (const auto &[sequence, waiting] : waiting_) count += waiting.size();
  return count;
}

void RepeatSharing::end_batch(std::uint64_t scope) {
  auto it = measured_for_.lower_bound({scope, std::string()});
  while (it != measured_for_.end() && it->first.first == scope) {
    key_of_.erase(it->second);  // measured but never answered: the batch was given up
    waiting_.erase(it->second);
    it = measured_for_.erase(it);
  }
}

}  // namespace hpcreward
