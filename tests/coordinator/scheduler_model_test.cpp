// The Scheduler against a plain model of its documented rules (the walk over every rank it
// replaced): random mixes of ranks, kinds, slots, completions and removals must give the same
// assignments, so keeping ready ranks in order changed the cost, not the choices.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <set>

#include "coordinator/ranks/scheduler.hpp"

namespace hpcreward {
namespace {

// The rules of scheduler.hpp, by walking every rank.
class ModelScheduler {
 public:
  explicit ModelScheduler(const std::vector<RankCapacity> &ranks) {
    for (RankCapacity capacity : ranks) ranks_.push_back({capacity, {}, 0});
  }
  bool enqueue(std::int64_t sequence, const std::string &kind) {
    if (std::none_of(ranks_.begin(), ranks_.end(), [&](const Rank &r) { return r.capacity.kind == kind; }))
      return false;
    queues_[kind].push_back(sequence);
    return true;
  }
  std::optional<Assignment> next_assignment() {
    Rank *best = nullptr;
    for (Rank &rank : ranks_) {
      if (rank.running.size() >= static_cast<std::size_t>(std::max(rank.capacity.slots, 1))) continue;
      auto queue = queues_.find(rank.capacity.kind);
      if (queue == queues_.end() || queue->second.empty()) continue;
      if (!best || rank.running.size() < best->running.size() ||
          (rank.running.size() == best->running.size() && rank.last < best->last))
        best = &rank;
    }
    if (!best) return std::nullopt;
    std::deque<std::int64_t> &queue = queues_[best->capacity.kind];
    Assignment assignment{best->capacity.rank, queue.front()};
    queue.pop_front();
    best->running.insert(assignment.sequence);
    best->last = ++assignments_;
    return assignment;
  }
  bool complete(int rank, std::int64_t sequence) {
    auto it = std::find_if(ranks_.begin(), ranks_.end(), [&](const Rank &r) { return r.capacity.rank == rank; });
    return it != ranks_.end() && it->running.erase(sequence) == 1;
  }
  std::vector<std::int64_t> remove_rank(int rank) {
    auto it = std::find_if(ranks_.begin(), ranks_.end(), [&](const Rank &r) { return r.capacity.rank == rank; });
    if (it == ranks_.end()) return {};
    std::vector<std::int64_t> held(it->running.begin(), it->running.end());
    std::deque<std::int64_t> &queue = queues_[it->capacity.kind];
    queue.insert(queue.begin(), held.begin(), held.end());
    std::sort(queue.begin(), queue.end());
    ranks_.erase(it);
    return held;
  }
  std::size_t running() const {
    std::size_t count = 0;
    for (const Rank &rank : ranks_) count += rank.running.size();
    return count;
  }
  std::vector<std::int64_t> held_by(int rank) const {
    for (const Rank &r : ranks_)
      if (r.capacity.rank == rank) return {r.running.begin(), r.running.end()};
    return {};
  }

 private:
  struct Rank {
    RankCapacity capacity;
    std::set<std::int64_t> running;
    std::uint64_t last;
  };
  std::vector<Rank> ranks_;
  std::map<std::string, std::deque<std::int64_t>> queues_;
  std::uint64_t assignments_ = 0;
};

TEST(SchedulerModel, MatchesTheRulesOnRandomRuns) {
  std::mt19937 random(12345);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<RankCapacity> ranks;
    const int count = 1 + static_cast<int>(random() % 12);
    for (int i = 0; i < count; ++i)
      ranks.push_back({1 + i, random() % 3 == 0 ? "gpu" : "cpu", static_cast<int>(random() % 4)});  // slots 0..3
    Scheduler scheduler(ranks);
    ModelScheduler model(ranks);
    std::int64_t next_sequence = 0;
    std::vector<std::pair<int, std::int64_t>> out;  // tasks held, for completions
    for (int step = 0; step < 300; ++step) {
      const unsigned action = random() % 10;
      if (action < 4) {
        const std::string kind = random() % 3 == 0 ? "gpu" : "cpu";
        ASSERT_EQ(scheduler.enqueue(next_sequence, kind), model.enqueue(next_sequence, kind));
        ++next_sequence;
      } else if (action < 7) {
        const auto got = scheduler.next_assignment();
        const auto want = model.next_assignment();
        ASSERT_EQ(got.has_value(), want.has_value()) << "trial " << trial << " step " << step;
        if (got) {
          ASSERT_EQ(got->rank, want->rank) << "trial " << trial << " step " << step;
          ASSERT_EQ(got->sequence, want->sequence);
          out.push_back({got->rank, got->sequence});
        }
      } else if (action < 9) {
        if (out.empty()) continue;
        const std::size_t pick = random() % out.size();
        const auto [rank, sequence] = out[pick];
        out.erase(out.begin() + static_cast<std::ptrdiff_t>(pick));
        ASSERT_EQ(scheduler.complete(rank, sequence), model.complete(rank, sequence));
      } else if (random() % 4 == 0) {
        const int rank = 1 + static_cast<int>(random() % static_cast<unsigned>(count));
        ASSERT_EQ(scheduler.remove_rank(rank), model.remove_rank(rank));
        std::erase_if(out, [&](const auto &task) { return task.first == rank; });
      }
      ASSERT_EQ(scheduler.running(), model.running());
      for (const RankCapacity &rank : ranks) ASSERT_EQ(scheduler.held_by(rank.rank), model.held_by(rank.rank));
    }
  }
}

TEST(SchedulerModel, CompletingATaskTwiceOrOnAnotherRankIsRefused) {
  Scheduler scheduler({{1, "cpu", 1}, {2, "cpu", 1}});
  scheduler.enqueue(0);
  ASSERT_TRUE(scheduler.next_assignment());
  EXPECT_FALSE(scheduler.complete(2, 0));
  EXPECT_TRUE(scheduler.complete(1, 0));
  EXPECT_FALSE(scheduler.complete(1, 0));
  EXPECT_EQ(scheduler.running(), 0u);
  EXPECT_TRUE(scheduler.finished());
}

}  // namespace
}  // namespace hpcreward
