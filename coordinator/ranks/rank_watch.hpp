#pragma once
// Whether the benchmark ranks are still answering. A rank that hangs without dying
// (kill -STOP, a stalled node) would otherwise stall the run forever: Open MPI only notices
// ranks that die.
//
// Each rank reports its task limit in its hello (RankInfo::task_limit_s: the most wall-clock
// seconds one task can take there). A rank holding tasks that has not answered for its task
// limit plus the margin (--rank-deadline-margin-s), counted from the later of its last answer
// and the send time of the oldest task it holds, is overdue. (A GPU rank holds several tasks
// but answers each as it is done, so counting from its last answer is right.) The caller
// quarantines an overdue rank: it gets no more work for the rest of the run, its tasks go to
// other ranks, and its late answers are discarded. No clock of its own: every call is told
// the time, so tests use a fake one.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace hpcreward {

class RankWatch {
 public:
  using Clock = std::chrono::steady_clock;
  using Seconds = std::chrono::duration<double>;

  explicit RankWatch(Seconds margin) : margin_(margin) {}

  // A rank to watch; `task_limit` <= 0 (a rank that did not report one): no deadline.
  void add_rank(int rank, Seconds task_limit);
  void sent(int rank, std::int64_t sequence, Clock::time_point now);
  void answered(int rank, std::int64_t sequence, Clock::time_point now);

  struct Overdue {
    int rank = 0;
    Seconds silent{0};    // since the later of its last answer and its oldest task's send
    Seconds limit{0};     // its task limit
    Seconds deadline{0};  // limit + margin
  };
  // The ranks past their deadline at `now` (not quarantined ones), lowest rank first.
  std::vector<Overdue> overdue(Clock::time_point now) const;
  // The earliest deadline of a rank that holds tasks, if any.
  std::optional<Clock::time_point> next_deadline() const;

  // From now on the rank is out: no deadline, and quarantined() says so.
  void quarantine(int rank);
  bool quarantined(int rank) const { return quarantined_.count(rank) > 0; }
  const std::set<int> &quarantined_ranks() const { return quarantined_; }

  Seconds margin() const { return margin_; }

 private:
  struct Watched {
    Seconds limit{0};
    std::optional<Clock::time_point> last_answer;
    std::map<std::int64_t, Clock::time_point> held;  // sequence -> when it was sent
    std::optional<Clock::time_point> deadline;       // its entry in deadlines_
  };
  std::optional<Clock::time_point> deadline_of(const Watched &watched) const;
  Clock::time_point counted_from(const Watched &watched) const;
  // Recomputes a rank's deadline after it was sent a task, answered or quarantined.
  void update_deadline(int rank, Watched &watched);

  Seconds margin_;
  std::map<int, Watched> ranks_;
  std::set<int> quarantined_;
  // (deadline, rank) of every rank that holds tasks and is not quarantined, earliest first:
  // the scoring loop asks after every result, so neither question walks every rank.
  std::set<std::pair<Clock::time_point, int>> deadlines_;
};

}  // namespace hpcreward
