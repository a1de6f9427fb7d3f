#pragma once
// Hands queued tasks to benchmark ranks as they have room. Each rank has a kind ("cpu" ranks
// score C problems, "gpu" ranks CUDA problems) and a number of slots: the tasks it may hold at
// once (1 for CPU ranks; a GPU rank compiles the next candidates while its GPU times one).
// A task goes only to a rank of its kind, tasks of one kind leave in the order they were
// queued (FIFO per kind), and a rank never holds more than its slots: the queue is never
// dealt out in bulk, so a slow candidate holds back at most the rank's other slots.
// Among ranks with room, the one holding the fewest tasks gets the next one (ties: the one
// that waited longest), so GPU ranks fill one slot each before any takes a second.
// A rank can be taken out (quarantined: rank_watch.hpp); the tasks it held go back to the
// front of their kind's queue, in their order, for the other ranks of that kind.
// Cost: each kind keeps its ranks with room in order (fewest held, waited longest), so a
// task's assignment and completion take O(kinds + log ranks), not a walk over every rank.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace hpcreward {

struct Assignment {
  int rank;
  std::int64_t sequence;
};

struct RankCapacity {
  int rank = 0;
  std::string kind = "cpu";
  int slots = 1;  // values below 1 count as 1
};

class Scheduler {
 public:
  explicit Scheduler(std::vector<RankCapacity> ranks);

  // Whether some rank (not taken out) takes tasks of `kind`.
  bool has_kind(const std::string &kind) const;
  // Queues a task for a rank of `kind`; false (nothing queued) when no rank has that kind.
  bool enqueue(std::int64_t sequence, const std::string &kind = "cpu");
  // The next (rank with room, queued task of its kind) pair, or nullopt when none is left.
  std::optional<Assignment> next_assignment();
  // `rank` reported `sequence`; returns false if that rank was not running that task.
  bool complete(int rank, std::int64_t sequence);
  // Takes `rank` out: it gets no more tasks, and the tasks it held go back to the front of
  // their kind's queue, in sequence order (returned so). Empty for a rank unknown or already
  // out. (Tasks are queued in sequence order; see remove_rank in scheduler.cpp.)
  std::vector<std::int64_t> remove_rank(int rank);
  // Kinds with queued tasks and no rank left to take them.
  std::vector<std::string> stranded_kinds() const;
  // The tasks `rank` holds, in order.
  std::vector<std::int64_t> held_by(int rank) const;
  // The tasks queued for ranks of `kind`, in order.
  std::vector<std::int64_t> queued_of(const std::string &kind) const;

  bool finished() const { return queued() == 0 && running() == 0; }
  std::size_t queued() const;
  std::size_t running() const;

 private:
  struct RankState {
    RankCapacity capacity;
    std::set<std::int64_t> running;
    std::uint64_t last_assigned = 0;  // 0: never; else the assignment counter then
    bool out = false;                 // taken out (remove_rank)
  };
  // The order in which ranks with room get tasks: fewest held, then waited longest, then
  // the order given.
  using ReadyKey = std::tuple<std::size_t, std::uint64_t, std::size_t>;
  struct KindState {
    std::deque<std::int64_t> queue;  // FIFO
    std::set<ReadyKey> ready;        // its ranks (not out) with a free slot
    std::size_t ranks = 0;           // its ranks not taken out
  };
  ReadyKey ready_key(std::size_t index) const;
  // Removes rank `index` from its kind's ready set, runs `change`, puts it back if it has room.
  template <typename Change>
  void update_rank(std::size_t index, Change change);
  RankState *find_rank(int rank);
  const RankState *find_rank(int rank) const;

  std::vector<RankState> ranks_;                     // in the order given (taken-out ones stay, marked)
  std::unordered_map<int, std::size_t> index_of_;    // rank -> position in ranks_
  std::map<std::string, KindState> kinds_;
  std::size_t running_ = 0;
  std::uint64_t assignments_ = 0;
};

}  // namespace hpcreward
