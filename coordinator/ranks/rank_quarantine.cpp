#include "coordinator/ranks/rank_quarantine.hpp"

#include <chrono>
#include <cmath>

#include "common/number_text.hpp"
#include "coordinator/ranks/problem_support.hpp"
#include "results/summary.hpp"

namespace hpcreward {
namespace {

double unix_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// "c12, c13, c14 and 5 more".
std::string id_list(const std::vector<std::string> &ids, std::size_t shown = 8) {
  std::string text;
  for (std::size_t i = 0; i < ids.size() && i < shown; ++i) text += (i ? ", " : "") + ids[i];
  if (ids.size() > shown) text += " and " + std::to_string(ids.size() - shown) + " more";
  return text;
}

}  // namespace

RankQuarantine::RankQuarantine(const std::vector<int> &ranks, std::map<int, RankInfo> rank_info,
                               RankWatch::Seconds margin)
    : ranks_(ranks), rank_info_(std::move(rank_info)), watch_(margin) {
  for (int rank : ranks_) {
    auto info = rank_info_.find(rank);
    watch_.add_rank(rank, RankWatch::Seconds(info == rank_info_.end() ? 0.0 : info->second.task_limit_s));
  }
}

std::string RankQuarantine::kind_of(int rank) const {
  auto it = rank_info_.find(rank);
  return it != rank_info_.end() ? it->second.kind : std::string(kCpuRankKind);
}

std::vector<RankCapacity> RankQuarantine::ranks_in_service() const {
  std::vector<RankCapacity> capacities;
  for (int rank : ranks_) {
    if (watch_.quarantined(rank)) continue;  // no more work for the rest of the run
    auto info = rank_info_.find(rank);
    capacities.push_back(info == rank_info_.end() ? RankCapacity{rank, std::string(kCpuRankKind), 1}
                                                  : RankCapacity{rank, info->second.kind, info->second.slots});
  }
  return capacities;
}

bool RankQuarantine::had_kind(const std::string &kind) const {
  for (int rank : ranks_)
    if (kind_of(rank) == kind) return true;
  return false;
}

std::vector<RankEventRecord> RankQuarantine::quarantine_overdue(Scheduler &scheduler, const CandidateIdOf &id_of,
                                                                Clock::time_point now, bool stopping) {
  std::vector<RankEventRecord> records;
  for (const RankWatch::Overdue &late : watch_.overdue(now)) {
    const std::vector<std::int64_t> held = scheduler.held_by(late.rank);
    scheduler.remove_rank(late.rank);
    watch_.quarantine(late.rank);
    std::vector<std::string> ids;
    for (std::int64_t sequence : held) {
      ids.push_back(id_of(sequence));
      abandoned_[{late.rank, sequence}] = ids.back();
    }
    const std::string kind = kind_of(late.rank);
    const std::string tasks = (ids.size() == 1 ? "held candidate " : "held candidates ") + id_list(ids);
    std::string fate;
    if (stopping)
      fate = tasks + " left without a row (the run is stopping; a resume scores them)";
    else if (scheduler.has_kind(kind))
      fate = tasks + " sent to other ranks";
    else
      fate = tasks + " have no " + kind + " rank left to go to";
    RankEventRecord record;
    record.time = unix_seconds();
    record.rank = late.rank;
    auto info = rank_info_.find(late.rank);
    record.host = info != rank_info_.end() ? info->second.host : "";
    record.event = "quarantined";
    record.reason = "no answer for " + seconds_text(std::round(late.silent.count() * 10) / 10) + "; deadline " +
                    seconds_text(late.deadline.count()) + " (task limit " + seconds_text(late.limit.count()) +
                    " + margin " + seconds_text(watch_.margin().count()) + "); " + fate;
    lost_.push_back(record);
    records.push_back(std::move(record));
  }
  return records;
}

void RankQuarantine::check_stranded(const Scheduler &scheduler, const CandidateIdOf &id_of) const {
  for (const std::string &kind : scheduler.stranded_kinds()) {
    std::vector<std::string> ids;
    for (std::int64_t sequence : scheduler.queued_of(kind)) ids.push_back(id_of(sequence));
    throw no_ranks_left(kind, ids);
  }
}

NoRanksLeft RankQuarantine::no_ranks_left(const std::string &kind, const std::vector<std::string> &ids) const {
  std::string lost;
  for (const RankEventRecord &event : lost_) {
    if (kind_of(event.rank) != kind) continue;
    lost += "\n  rank " + std::to_string(event.rank) + " on " + event.host + ", " + utc_time_text(event.time) +
            " UTC: " + event.reason;
  }
  const std::size_t waiting = ids.size();
  return NoRanksLeft("no " + kind + " benchmark rank is left for the " + std::to_string(waiting) + " candidate" +
                     (waiting == 1 ? "" : "s") + " still to score (" + id_list(ids) + "): every " + kind +
                     " rank was quarantined for not answering:" + lost +
                     "\nThe log keeps every row written so far; check those nodes, then rerun with --resume");
}

std::string RankQuarantine::late_answer_note(int rank, std::int64_t sequence) const {
  auto abandoned = abandoned_.find({rank, sequence});
  return "note: rank " + std::to_string(rank) + " answered " +
         (abandoned != abandoned_.end() ? "candidate " + abandoned->second : "task " + std::to_string(sequence)) +
         " after it was quarantined; the answer is discarded (the candidate was sent to another rank)";
}

}  // namespace hpcreward
