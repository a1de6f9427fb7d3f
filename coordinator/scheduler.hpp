#pragma once
// Hands queued tasks to benchmark ranks one at a time, as each becomes free. Never deals
// tasks out in bulk: a slow candidate must not hold a queue of others behind it.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

namespace hpcreward {

struct Assignment {
  int rank;
  std::int64_t sequence;
};

class Scheduler {
 public:
  explicit Scheduler(std::vector<int> ranks);

  void enqueue(std::int64_t sequence);
  // The next (idle rank, queued task) pair, or nullopt when no rank is idle or nothing waits.
  std::optional<Assignment> next_assignment();
  // `rank` reported `sequence`; returns false if that rank was not running that task.
  bool complete(int rank, std::int64_t sequence);

  bool finished() const { return queue_.empty() && running_.empty(); }
  std::size_t queued() const { return queue_.size(); }
  std::size_t running() const { return running_.size(); }

 private:
  std::deque<int> idle_ranks_;
  std::deque<std::int64_t> queue_;
  std::map<int, std::int64_t> running_;  // rank -> sequence
};

}  // namespace hpcreward
