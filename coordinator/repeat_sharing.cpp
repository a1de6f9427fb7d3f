#include "coordinator/repeat_sharing.hpp"

namespace hpcreward {

RepeatSharing::Route RepeatSharing::route(std::int64_t sequence, const std::string &key) {
  if (sharing()) {
    if (const CachedMeasurement *earlier = cache_.find(key)) return {Route::reuse, earlier};
    auto [first, inserted] = measured_for_.emplace(key, sequence);
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
  answer.key = key_of_.at(sequence);
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

void RepeatSharing::start_batch() {
  key_of_.clear();
  measured_for_.clear();
  waiting_.clear();
}

}  // namespace hpcreward
