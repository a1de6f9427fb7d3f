#include "coordinator/ranks/rank_watch.hpp"

#include <algorithm>

namespace hpcreward {

void RankWatch::add_rank(int rank, Seconds task_limit) {
  Watched &watched = ranks_[rank];
  watched.limit = task_limit;
  update_deadline(rank, watched);
}

void RankWatch::sent(int rank, std::int64_t sequence, Clock::time_point now) {
  Watched &watched = ranks_[rank];
  watched.held[sequence] = now;
  update_deadline(rank, watched);
}

void RankWatch::answered(int rank, std::int64_t sequence, Clock::time_point now) {
  Watched &watched = ranks_[rank];
  watched.held.erase(sequence);
  watched.last_answer = now;
  update_deadline(rank, watched);
}

void RankWatch::update_deadline(int rank, Watched &watched) {
  if (watched.deadline) deadlines_.erase({*watched.deadline, rank});
  watched.deadline = quarantined(rank) ? std::nullopt : deadline_of(watched);
  if (watched.deadline) deadlines_.insert({*watched.deadline, rank});
}

RankWatch::Clock::time_point RankWatch::counted_from(const Watched &watched) const {
  Clock::time_point oldest_send = Clock::time_point::max();
  for (const auto &[sequence, sent_at] : watched.held) oldest_send = std::min(oldest_send, sent_at);
  return watched.last_answer ? std::max(*watched.last_answer, oldest_send) : oldest_send;
}

std::optional<RankWatch::Clock::time_point> RankWatch::deadline_of(const Watched &watched) const {
  if (watched.held.empty() || watched.limit.count() <= 0) return std::nullopt;
  return counted_from(watched) + std::chrono::duration_cast<Clock::duration>(watched.limit + margin_);
}

std::vector<RankWatch::Overdue> RankWatch::overdue(Clock::time_point now) const {
  std::vector<Overdue> late;
  for (auto it = deadlines_.begin(); it != deadlines_.end() && it->first <= now; ++it) {
    const Watched &watched = ranks_.at(it->second);
    late.push_back({it->second, now - counted_from(watched), watched.limit, watched.limit + margin_});
  }
  std::sort(late.begin(), late.end(), [](const Overdue &a, const Overdue &b) { return a.rank < b.rank; });
  return late;
}

std::optional<RankWatch::Clock::time_point> RankWatch::next_deadline() const {
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.begin()->first;
}

void RankWatch::quarantine(int rank) {
  quarantined_.insert(rank);
  Watched &watched = ranks_[rank];
  watched.held.clear();
  update_deadline(rank, watched);
}

}  // namespace hpcreward
