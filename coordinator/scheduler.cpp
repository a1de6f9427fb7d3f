#include "coordinator/scheduler.hpp"

#include <algorithm>

namespace hpcreward {

Scheduler::Scheduler(std::vector<RankCapacity> ranks) {
  for (RankCapacity &capacity : ranks) {
    capacity.slots = std::max(capacity.slots, 1);
    ranks_.push_back({std::move(capacity), {}, 0});
  }
}

bool Scheduler::has_kind(const std::string &kind) const {
  return std::any_of(ranks_.begin(), ranks_.end(),
                     [&](const RankState &state) { return state.capacity.kind == kind; });
}

bool Scheduler::enqueue(std::int64_t sequence, const std::string &kind) {
  if (!has_kind(kind)) return false;
  queues_[kind].push_back(sequence);
  return true;
}

std::optional<Assignment> Scheduler::next_assignment() {
  RankState *best = nullptr;
  for (RankState &state : ranks_) {
    if (state.running.size() >= static_cast<std::size_t>(state.capacity.slots)) continue;
    auto queue = queues_.find(state.capacity.kind);
    if (queue == queues_.end() || queue->second.empty()) continue;
    if (!best || state.running.size() < best->running.size() ||
        (state.running.size() == best->running.size() && state.last_assigned < best->last_assigned))
      best = &state;
  }
  if (!best) return std::nullopt;
  std::deque<std::int64_t> &queue = queues_[best->capacity.kind];
  Assignment assignment{best->capacity.rank, queue.front()};
  queue.pop_front();
  best->running.insert(assignment.sequence);
  best->last_assigned = ++assignments_;
  return assignment;
}

std::vector<std::int64_t> Scheduler::remove_rank(int rank) {
  auto state = std::find_if(ranks_.begin(), ranks_.end(),
                            [&](const RankState &s) { return s.capacity.rank == rank; });
  if (state == ranks_.end()) return {};
  std::vector<std::int64_t> held(state->running.begin(), state->running.end());
  // Tasks leave a kind's queue in sequence order, so the tasks any rank holds precede those
  // still queued: sorting puts the returned ones first, and in their order even when several
  // ranks are taken out one after another.
  std::deque<std::int64_t> &queue = queues_[state->capacity.kind];
  queue.insert(queue.begin(), held.begin(), held.end());
  std::sort(queue.begin(), queue.end());
  ranks_.erase(state);
  return held;
}

std::vector<std::string> Scheduler::stranded_kinds() const {
  std::vector<std::string> kinds;
  for (const auto &[kind, queue] : queues_)
    if (!queue.empty() && !has_kind(kind)) kinds.push_back(kind);
  return kinds;
}

std::vector<std::int64_t> Scheduler::held_by(int rank) const {
  for (const RankState &state : ranks_)
    if (state.capacity.rank == rank) return {state.running.begin(), state.running.end()};
  return {};
}

std::vector<std::int64_t> Scheduler::queued_of(const std::string &kind) const {
  auto queue = queues_.find(kind);
  if (queue == queues_.end()) return {};
  return {queue->second.begin(), queue->second.end()};
}

bool Scheduler::complete(int rank, std::int64_t sequence) {
  auto state = std::find_if(ranks_.begin(), ranks_.end(),
                            [&](const RankState &s) { return s.capacity.rank == rank; });
  return state != ranks_.end() && state->running.erase(sequence) == 1;
}

std::size_t Scheduler::queued() const {
  std::size_t count = 0;
  for (const auto &[kind, queue] : queues_) count += queue.size();
  return count;
}

std::size_t Scheduler::running() const {
  std::size_t count = 0;
  for (const RankState &state : ranks_) count += state.running.size();
  return count;
}

}  // namespace hpcreward
