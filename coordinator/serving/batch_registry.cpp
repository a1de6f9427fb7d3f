#include "coordinator/serving/batch_registry.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "common/sha256.hpp"

namespace hpcreward {

const char *to_string(BatchState state) {
  switch (state) {
    case BatchState::queued: return "queued";
    case BatchState::running: return "running";
    case BatchState::done: return "done";
    case BatchState::failed: return "failed";
  }
  return "unknown";
}

std::string batch_fingerprint(const std::vector<CandidateIdentity> &candidates) {
  nlohmann::json list = nlohmann::json::array();
  for (const CandidateIdentity &c : candidates)
    list.push_back({c.id, c.problem, c.stage, c.text_kind, c.text_sha256});
  return sha256_hex(list.dump());
}

namespace {

constexpr const char *kStoppingMessage = "the coordinator is stopping and takes no new batches";

}  // namespace

void BatchRegistry::restore(const RewardRow &row, std::uint64_t log_index) {
  std::lock_guard lock(mutex_);
  restored_.add(row, log_index);
}

std::size_t BatchRegistry::restored() const {
  std::lock_guard lock(mutex_);
  return restored_.batches();
}

std::size_t BatchRegistry::restored_rows() const {
  std::lock_guard lock(mutex_);
  return restored_.rows();
}

SubmitOutcome BatchRegistry::submit(const std::string &batch_id, const std::string &fingerprint,
                                    std::vector<PreparedCandidate> candidates) {
  std::lock_guard lock(mutex_);
  const auto conflict = [&] {
    return SubmitOutcome{SubmitOutcome::conflict,
                         "batch_id \"" + batch_id + "\" was already submitted with other candidates (ids, problems, "
                         "stages or code differ); send it again unchanged, or use a new batch_id"};
  };
  if (auto it = entries_.find(batch_id); it != entries_.end()) {
    if (it->second.fingerprint == fingerprint) return {SubmitOutcome::existing, ""};
    return conflict();
  }
  if (auto it = evicted_.find(batch_id); it != evicted_.end()) {
    // Answered long ago: the main thread reads its rows back from the log.
    if (it->second.fingerprint != fingerprint) return conflict();
    if (closed_) return {SubmitOutcome::closed, closed_message()};
    Entry entry;
    entry.fingerprint = fingerprint;
    entry.total = candidates.size();
    entry.from_log = true;
    entry.log_rows = it->second.log_rows;
    entry.candidates = std::move(candidates);
    entry.queued_at = Clock::now();
    evicted_.erase(it);
    entries_.emplace(batch_id, std::move(entry));
    queue_.push_back(batch_id);
    queue_changed_.notify_all();
    return {SubmitOutcome::existing, ""};
  }
  Entry entry;
  entry.fingerprint = fingerprint;
  entry.total = candidates.size();
  if (const LoggedBatch *logged = restored_.find(batch_id)) {
    const LoggedMatch match = match_logged_identities(candidates, logged->rows);
    if (!match.mismatch.empty())
      return {SubmitOutcome::conflict, "batch_id \"" + batch_id + "\" is in the log with other candidates: " +
                                           match.mismatch + "; use a new batch_id"};
    if (closed_) return {SubmitOutcome::closed, closed_message()};
    // Every candidate has its row: the main thread answers it from the log, in this
    // request's order. Otherwise the missing ones are scored, the logged ones read back.
    entry.from_log = match.matched == candidates.size();
    if (!entry.from_log) entry.logged = match.matched;
    entry.log_rows = logged->range;
    restored_.erase(batch_id);
  } else if (closed_) {
    return {SubmitOutcome::closed, closed_message()};
  }
  const SubmitOutcome::Kind kind = entry.from_log ? SubmitOutcome::existing : SubmitOutcome::accepted;
  entry.candidates = std::move(candidates);
  entry.queued_at = Clock::now();
  entries_.emplace(batch_id, std::move(entry));
  queue_.push_back(batch_id);
  queue_changed_.notify_all();
  return {kind, ""};
}

BatchSnapshot BatchRegistry::snapshot_locked(const std::string &batch_id, const Entry &entry) const {
  BatchSnapshot snapshot;
  snapshot.batch_id = batch_id;
  snapshot.state = entry.state;
  snapshot.done = entry.done;
  snapshot.total = entry.total;
  snapshot.error = entry.error;
  snapshot.retry_later = entry.retry_later;
  if (entry.state == BatchState::done) snapshot.results = entry.results;
  return snapshot;
}

std::optional<BatchSnapshot> BatchRegistry::snapshot(const std::string &batch_id) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(batch_id);
  if (it == entries_.end()) return std::nullopt;
  return snapshot_locked(batch_id, it->second);
}

std::optional<BatchSnapshot> BatchRegistry::wait(const std::string &batch_id) const {
  std::unique_lock lock(mutex_);
  auto it = entries_.find(batch_id);  // not evicted while it has waiters: `it` stays valid
  if (it == entries_.end()) return std::nullopt;
  ++it->second.waiters;
  finished_.wait(lock, [&] {
    return it->second.state == BatchState::done || it->second.state == BatchState::failed;
  });
  --it->second.waiters;
  return snapshot_locked(batch_id, it->second);
}

int BatchRegistry::waiters(const std::string &batch_id) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(batch_id);
  return it == entries_.end() ? 0 : it->second.waiters;
}

bool BatchRegistry::only_logged(const std::string &batch_id) const {
  std::lock_guard lock(mutex_);
  return restored_.find(batch_id) != nullptr || evicted_.count(batch_id) > 0;
}

bool BatchRegistry::coalescable(const Entry &entry) const {
  return coalesce_.enabled() && entry.total == 1 && entry.logged == 0 && !entry.from_log;
}

std::vector<QueuedBatch> BatchRegistry::take_locked(const std::vector<std::string> &batch_ids) {
  std::vector<QueuedBatch> taken;
  for (const std::string &batch_id : batch_ids) {
    std::erase(queue_, batch_id);
    QueuedBatch batch;
    batch.batch_id = batch_id;
    Entry &entry = entries_.at(batch_id);
    entry.state = BatchState::running;
    entry.done = entry.logged;
    batch.candidates = std::move(entry.candidates);
    entry.candidates.clear();
    batch.logged_count = entry.logged;
    batch.log_rows = entry.log_rows;
    batch.from_log = entry.from_log;
    running_.insert(batch_id);
    taken.push_back(std::move(batch));
  }
  return taken;
}

std::optional<QueuedBatch> BatchRegistry::next(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!queue_changed_.wait_for(lock, timeout, [&] { return !queue_.empty(); })) return std::nullopt;
  return std::move(take_locked({queue_.front()}).front());
}

std::optional<std::vector<QueuedBatch>> BatchRegistry::next_group(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  const Clock::time_point until = Clock::now() + timeout;
  while (true) {
    const Clock::time_point now = Clock::now();
    Clock::time_point wake = until;
    if (!queue_.empty()) {
      const Entry &oldest = entries_.at(queue_.front());
      if (!coalescable(oldest)) return take_locked({queue_.front()});
      // The oldest is a single: gather every queued single (a multi-candidate batch behind
      // it waits at most the window; singles never merge into it).
      std::vector<std::string> singles;
      for (const std::string &batch_id : queue_)
        if (singles.size() < coalesce_.max && coalescable(entries_.at(batch_id))) singles.push_back(batch_id);
      const Clock::time_point ready_at = oldest.queued_at + coalesce_.window;
      if (singles.size() >= coalesce_.max || closed_ || now >= ready_at) return take_locked(singles);
      wake = std::min(until, ready_at);
    }
    if (now >= until) return std::nullopt;
    queue_changed_.wait_until(lock, wake);
  }
}

void BatchRegistry::row_written(const std::string &batch_id) {
  std::lock_guard lock(mutex_);
  if (!running_.count(batch_id)) return;
  Entry &entry = entries_.at(batch_id);
  if (entry.done < entry.total) ++entry.done;
}

void BatchRegistry::complete(const std::string &batch_id, std::vector<RewardRow> rows, LogRowRange written) {
  std::lock_guard lock(mutex_);
  Entry &entry = entries_.at(batch_id);
  // A batch partly logged before a restart has rows in its old span and in `written`.
  const LogRowRange whole;
  const bool known = entry.log_rows.first != whole.first || entry.log_rows.end != whole.end;
  entry.log_rows = known ? LogRowRange{std::min(entry.log_rows.first, written.first),
                                       std::max(entry.log_rows.end, written.end)}
                         : written;
  entry.results = std::move(rows);
  entry.done = entry.total;
  entry.state = BatchState::done;
  running_.erase(batch_id);
  answered_locked(batch_id);
  finished_.notify_all();
}

void BatchRegistry::complete_from_log(const std::string &batch_id, const std::vector<PreparedCandidate> &candidates,
                                      const std::vector<RewardRow> &logged) {
  const LoggedMatch match = match_logged_rows(candidates, logged);
  std::string mismatch = match.mismatch;
  if (mismatch.empty() && match.matched != candidates.size())
    mismatch = std::to_string(candidates.size() - match.matched) + " of its candidates have no row in the log";
  std::lock_guard lock(mutex_);
  Entry &entry = entries_.at(batch_id);
  running_.erase(batch_id);
  entry.from_log = false;
  if (!mismatch.empty()) {  // the log disagrees with what it answered before: say so, score nothing
    entry.state = BatchState::failed;
    entry.error = "batch " + batch_id + " was answered before but its log rows do not match: " + mismatch;
    finished_.notify_all();
    return;
  }
  entry.results.clear();
  for (std::size_t row : match.row_of) entry.results.push_back(logged[row]);
  entry.done = entry.total;
  entry.state = BatchState::done;
  answered_locked(batch_id);
  finished_.notify_all();
}

void BatchRegistry::fail(const std::string &batch_id, const std::string &error, bool retry_later) {
  std::lock_guard lock(mutex_);
  Entry &entry = entries_.at(batch_id);
  running_.erase(batch_id);
  entry.state = BatchState::failed;
  entry.error = error;
  entry.retry_later = retry_later;
  finished_.notify_all();
}

void BatchRegistry::answered_locked(const std::string &batch_id) {
  answered_.push_back(batch_id);
  answered_rows_ += entries_.at(batch_id).results.size();
  // The newest answer always stays; one that a caller still waits on stays until it is read.
  while (answered_rows_ > keep_answered_rows_ && answered_.size() > 1) {
    auto oldest = entries_.find(answered_.front());
    if (oldest->second.waiters > 0) break;
    answered_rows_ -= oldest->second.results.size();
    evicted_.emplace(oldest->first, Evicted{std::move(oldest->second.fingerprint), oldest->second.log_rows});
    entries_.erase(oldest);
    answered_.pop_front();
  }
}

void BatchRegistry::fail_all(const std::string &error) {
  std::lock_guard lock(mutex_);
  closed_ = true;
  for (auto &[id, entry] : entries_)
    if (entry.state != BatchState::done) {
      entry.state = BatchState::failed;
      entry.error = error;
    }
  queue_.clear();
  running_.clear();
  finished_.notify_all();
  queue_changed_.notify_all();
}

std::size_t BatchRegistry::fail_queued(const std::string &error) {
  std::lock_guard lock(mutex_);
  std::size_t failed = 0;
  for (const std::string &batch_id : queue_) {
    Entry &entry = entries_.at(batch_id);
    entry.state = BatchState::failed;
    entry.error = error;
    entry.retry_later = true;
    entry.candidates.clear();
    ++failed;
  }
  queue_.clear();
  finished_.notify_all();
  return failed;
}

void BatchRegistry::fail_running(const std::string &error) {
  std::lock_guard lock(mutex_);
  if (running_.empty()) return;
  for (const std::string &batch_id : running_) {
    Entry &entry = entries_.at(batch_id);
    entry.state = BatchState::failed;
    entry.error = error;
    entry.retry_later = true;
  }
  running_.clear();
  finished_.notify_all();
}

void BatchRegistry::close(const std::string &reason) {
  std::lock_guard lock(mutex_);
  closed_ = true;
  if (!reason.empty()) closed_reason_ = reason;
  queue_changed_.notify_all();
}

std::string BatchRegistry::closed_message() const {
  return closed_reason_.empty() ? kStoppingMessage : closed_reason_;
}

bool BatchRegistry::is_closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

bool BatchRegistry::idle() const {
  std::lock_guard lock(mutex_);
  return queue_.empty() && running_.empty();
}

std::size_t BatchRegistry::batches() const {
  std::lock_guard lock(mutex_);
  return entries_.size() + evicted_.size();
}

std::size_t BatchRegistry::batches_in_memory() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

void BatchRegistry::set_stages(std::map<std::string, std::string> stages) {
  std::lock_guard lock(mutex_);
  stages_ = std::move(stages);
}

std::map<std::string, std::string> BatchRegistry::stages() const {
  std::lock_guard lock(mutex_);
  return stages_;
}

}  // namespace hpcreward
