#pragma once
// What happens to a benchmark rank that stops answering: RankWatch says when a rank is
// overdue; this quarantines it for the rest of the run. The tasks it held go back to the
// scheduler's queue for the other ranks of its kind, the quarantine becomes a record for the
// log's /rank_events (saying where its tasks went), and an answer it sends later is discarded
// with a note. With no rank left for a kind that still has tasks, the run ends: NoRanksLeft.
// No clock of its own: every call that needs the time is told it, so tests use fake ones.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/messages.hpp"
#include "coordinator/ranks/rank_watch.hpp"
#include "coordinator/ranks/scheduler.hpp"
#include "results/log_records.hpp"

namespace hpcreward {

// No benchmark rank is left for a kind that still has tasks: every rank of that kind was
// quarantined. what() names those ranks and why; the rows written so far stay in the sink.
class NoRanksLeft : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RankQuarantine {
 public:
  using Clock = RankWatch::Clock;

  // Watches `ranks`; each one's kind, slots, host and task limit come from `rank_info` (a rank
  // missing there: a CPU rank with one slot and no deadline). `margin`: --rank-deadline-margin-s.
  RankQuarantine(const std::vector<int> &ranks, std::map<int, RankInfo> rank_info, RankWatch::Seconds margin);

  void sent(int rank, std::int64_t sequence, Clock::time_point now) { watch_.sent(rank, sequence, now); }
  void answered(int rank, std::int64_t sequence, Clock::time_point now) { watch_.answered(rank, sequence, now); }
  bool quarantined(int rank) const { return watch_.quarantined(rank); }
  // The earliest deadline of a rank that holds tasks: how long a wait for results may last.
  std::optional<Clock::time_point> next_deadline() const { return watch_.next_deadline(); }

  // The ranks still taking work, with their kind and slots, in the order given.
  std::vector<RankCapacity> ranks_in_service() const;
  // Whether the run had ranks of `kind`, quarantined ones included.
  bool had_kind(const std::string &kind) const;

  // Quarantines every rank overdue at `now`: the scheduler gives its tasks back; `id_of(sequence)`
  // names a task's candidate. Returns the records, lowest rank first, for the caller to log; each
  // reason says where the held candidates went (`stopping`: nowhere, a resume scores them).
  using CandidateIdOf = std::function<std::string(std::int64_t sequence)>;
  std::vector<RankEventRecord> quarantine_overdue(Scheduler &scheduler, const CandidateIdOf &id_of,
                                                  Clock::time_point now, bool stopping);
  // Throws NoRanksLeft when a kind has tasks queued in `scheduler` and no rank to take them.
  void check_stranded(const Scheduler &scheduler, const CandidateIdOf &id_of) const;
  // The error for candidates `ids` that wait for a rank of `kind` when every one was quarantined.
  NoRanksLeft no_ranks_left(const std::string &kind, const std::vector<std::string> &ids) const;
  // The note for an answer that quarantined `rank` sent for task `sequence` (it is discarded).
  std::string late_answer_note(int rank, std::int64_t sequence) const;

  // The ranks quarantined so far, in order, as logged.
  const std::vector<RankEventRecord> &lost() const { return lost_; }

 private:
  std::string kind_of(int rank) const;

  std::vector<int> ranks_;
  std::map<int, RankInfo> rank_info_;
  RankWatch watch_;
  std::vector<RankEventRecord> lost_;
  // (rank, sequence) -> candidate id of the tasks quarantined ranks held, for the note when
  // one of them answers late.
  std::map<std::pair<int, std::int64_t>, std::string> abandoned_;
};

}  // namespace hpcreward
