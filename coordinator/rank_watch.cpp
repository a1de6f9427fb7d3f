#include "coordinator/rank_watch.hpp"

#include <algorithm>

namespace hpcreward {

void RankWatch::add_rank(int rank, Seconds task_limit) { ranks_[rank].limit = task_limit; }

void RankWatch::sent(int rank, std::int64_t sequence, Clock::time_point now) { ranks_[rank].held[sequence] = now; }

void RankWatch::answered(int rank, std::int64_t sequence, Clock::time_point now) {
  Watched &watched = ranks_[rank];
  watched.held.erase(sequence);
  watched.last_answer = now;
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
  for (const auto &[rank, watched] : ranks_) {
    if (quarantined(rank)) continue;
    const std::optional<Clock::time_point> deadline = deadline_of(watched);
    if (!deadline || now < *deadline) continue;
    late.push_back({rank, now - counted_from(watched), watched.limit, watched.limit + margin_});
  }
  return late;
}

std::optional<RankWatch::Clock::time_point> RankWatch::next_deadline() const {
  std::optional<Clock::time_point> earliest;
  for (const auto &[rank, watched] : ranks_) {
    if (quarantined(rank)) continue;
    if (const auto deadline = deadline_of(watched); deadline && (!earliest || *deadline < *earliest))
      earliest = deadline;
  }
  return earliest;
}

void RankWatch::quarantine(int rank) {
  quarantined_.insert(rank);
  ranks_[rank].held.clear();
}

}  // namespace hpcreward
