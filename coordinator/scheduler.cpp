#include "coordinator/scheduler.hpp"

namespace hpcreward {

Scheduler::Scheduler(std::vector<int> ranks) : idle_ranks_(ranks.begin(), ranks.end()) {}

void Scheduler::enqueue(std::int64_t sequence) { queue_.push_back(sequence); }

std::optional<Assignment> Scheduler::next_assignment() {
  if (idle_ranks_.empty() || queue_.empty()) return std::nullopt;
  Assignment assignment{idle_ranks_.front(), queue_.front()};
  idle_ranks_.pop_front();
  queue_.pop_front();
  running_[assignment.rank] = assignment.sequence;
  return assignment;
}

bool Scheduler::complete(int rank, std::int64_t sequence) {
  auto it = running_.find(rank);
  if (it == running_.end() || it->second != sequence) return false;
  running_.erase(it);
  idle_ranks_.push_back(rank);
  return true;
}

}  // namespace hpcreward
