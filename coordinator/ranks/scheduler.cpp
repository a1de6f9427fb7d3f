#include "coordinator/ranks/scheduler.hpp"

#include <algorithm>

namespace hpcreward {

Scheduler::Scheduler(std::vector<RankCapacity> ranks) {
  for (RankCapacity &capacity : ranks) {
    capacity.slots = std::max(capacity.slots, 1);
    const std::size_t index = ranks_.size();
    index_of_.emplace(capacity.rank, index);
    KindState &kind = kinds_[capacity.kind];
    ranks_.push_back({std::move(capacity), {}, 0, false});
    ++kind.ranks;
    kind.ready.insert(ready_key(index));
  }
}

Scheduler::ReadyKey Scheduler::ready_key(std::size_t index) const {
  const RankState &state = ranks_[index];
  return {state.running.size(), state.last_assigned, index};
}

template <typename Change>
void Scheduler::update_rank(std::size_t index, Change change) {
  RankState &state = ranks_[index];
  std::set<ReadyKey> &ready = kinds_[state.capacity.kind].ready;
  ready.erase(ready_key(index));
  change(state);
  if (!state.out && state.running.size() < static_cast<std::size_t>(state.capacity.slots))
    ready.insert(ready_key(index));
}

Scheduler::RankState *Scheduler::find_rank(int rank) {
  auto it = index_of_.find(rank);
  return it == index_of_.end() || ranks_[it->second].out ? nullptr : &ranks_[it->second];
}

const Scheduler::RankState *Scheduler::find_rank(int rank) const {
  auto it = index_of_.find(rank);
  return it == index_of_.end() || ranks_[it->second].out ? nullptr : &ranks_[it->second];
}

bool Scheduler::has_kind(const std::string &kind) const {
  auto it = kinds_.find(kind);
  return it != kinds_.end() && it->second.ranks > 0;
}

bool Scheduler::enqueue(std::int64_t sequence, const std::string &kind) {
  auto it = kinds_.find(kind);
  if (it == kinds_.end() || it->second.ranks == 0) return false;
  it->second.queue.push_back(sequence);
  return true;
}

std::optional<Assignment> Scheduler::next_assignment() {
  // The best rank with room among the kinds with queued tasks: a look at each kind's first.
  KindState *best = nullptr;
  for (auto &[name, kind] : kinds_) {
    if (kind.queue.empty() || kind.ready.empty()) continue;
    if (!best || *kind.ready.begin() < *best->ready.begin()) best = &kind;
  }
  if (!best) return std::nullopt;
  const std::size_t index = std::get<2>(*best->ready.begin());
  Assignment assignment{ranks_[index].capacity.rank, best->queue.front()};
  best->queue.pop_front();
  update_rank(index, [&](RankState &state) {
    state.running.insert(assignment.sequence);
    state.last_assigned = ++assignments_;
  });
  ++running_;
  return assignment;
}

std::vector<std::int64_t> Scheduler::remove_rank(int rank) {
  RankState *state = find_rank(rank);
  if (!state) return {};
  std::vector<std::int64_t> held(state->running.begin(), state->running.end());
  // Tasks leave a kind's queue in sequence order, so the tasks any rank holds precede those
  // still queued: sorting puts the returned ones first, and in their order even when several
  // ranks are taken out one after another.
  KindState &kind = kinds_[state->capacity.kind];
  kind.queue.insert(kind.queue.begin(), held.begin(), held.end());
  std::sort(kind.queue.begin(), kind.queue.end());
  update_rank(index_of_.at(rank), [](RankState &s) {
    s.running.clear();
    s.out = true;
  });
  --kind.ranks;
  running_ -= held.size();
  return held;
}

std::vector<std::string> Scheduler::stranded_kinds() const {
  std::vector<std::string> kinds;
  for (const auto &[name, kind] : kinds_)
    if (!kind.queue.empty() && kind.ranks == 0) kinds.push_back(name);
  return kinds;
}

std::vector<std::int64_t> Scheduler::held_by(int rank) const {
  const RankState *state = find_rank(rank);
  if (!state) return {};
  return {state->running.begin(), state->running.end()};
}

std::vector<std::int64_t> Scheduler::queued_of(const std::string &kind) const {
  auto it = kinds_.find(kind);
  if (it == kinds_.end()) return {};
  return {it->second.queue.begin(), it->second.queue.end()};
}

bool Scheduler::complete(int rank, std::int64_t sequence) {
  RankState *state = find_rank(rank);
  if (!state || !state->running.contains(sequence)) return false;
  update_rank(index_of_.at(rank), [&](RankState &s) { s.running.erase(sequence); });
  --running_;
  return true;
}

std::size_t Scheduler::queued() const {
  std::size_t count = 0;
  for (const auto &[name, kind] : kinds_) count += kind.queue.size();
  return count;
}

std::size_t Scheduler::running() const { return running_; }

}  // namespace hpcreward
