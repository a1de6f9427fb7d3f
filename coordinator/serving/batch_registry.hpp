#pragma once
// Serve mode's batches, shared by the HTTP threads (submit, look up, wait) and the main
// thread (take the next queued batch, report rows, publish results). Batches are
// idempotent by id: the same id with the same content (fingerprint) is the same batch and
// is never queued twice; the same id with other content is a conflict. Thread-safe: one
// mutex, one condition variable for the queue and one for finished batches.
//
// Coalescing (coordinator/README.md, "Coalescing per-sample requests"): queued batches of
// one candidate (a trainer's per-sample calls) are taken together, as one group, once the
// oldest of them has waited the window or the cap is reached. Each keeps its own entry (id,
// fingerprint, state, rows); only the main thread scores them in one go.
//
// Memory is bounded: answered batches keep their rows in memory only while the answered
// rows held stay within `keep_answered_rows` (the oldest go first, never one a caller is
// still waiting on). An older batch keeps only its id and fingerprint; sent again
// unchanged, it is queued `from_log` and the main thread answers it from the log's rows
// (complete_from_log): never scored or logged twice (docs/design.md "Trainer endpoint").
// After a restart (--resume) it holds no logged rows either, only their identities
// (logged_identity.hpp): a resubmitted batch the log answers in full is queued `from_log`
// like an evicted one; a partly logged one is queued with the count of its logged
// candidates, whose rows the main thread reads from the log when it takes the batch.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/input/candidate_input.hpp"
#include "coordinator/serving/logged_identity.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

enum class BatchState { queued, running, done, failed };
const char *to_string(BatchState state);

// What one candidate of a request is, for the batch's fingerprint.
struct CandidateIdentity {
  std::string id;
  std::string problem;
  std::string stage;        // as requested; empty: the ladder decides
  std::string text_kind;    // "source" or "completion"
  std::string text_sha256;  // of the source or completion text as sent
};

// Content identity of a batch: sha256 over its candidates' identities, in order.
std::string batch_fingerprint(const std::vector<CandidateIdentity> &candidates);

struct BatchSnapshot {
  std::string batch_id;
  BatchState state = BatchState::queued;
  std::size_t done = 0;
  std::size_t total = 0;
  std::vector<RewardRow> results;  // in the candidates' order, once done
  std::string error;               // why it failed (state failed)
  bool retry_later = false;        // failed by a stop for a requeue: send it again after the restart
};

struct SubmitOutcome {
  enum Kind {
    accepted,  // new batch, queued
    existing,  // this batch was submitted before (or is in the log): same answer
    conflict,  // the id is taken by other content; `message` says how
    closed,    // the coordinator is stopping and takes no new batches
  } kind = accepted;
  std::string message;
};

// A batch the main thread takes from the queue.
struct QueuedBatch {
  std::string batch_id;
  std::vector<PreparedCandidate> candidates;
  // After a restart: how many of its candidates already have a row in the log. The main
  // thread reads those rows (ServeHooks::logged_rows) into `logged` before scoring it; such
  // a batch is never coalesced with others.
  std::size_t logged_count = 0;
  std::vector<RewardRow> logged;
  // Where its rows lie in the log, when the registry knows (after a restart); else all of it.
  LogRowRange log_rows;
  // Answered before (in this run, or in full by the log after a restart) and not in memory:
  // answer it from the log's rows, score nothing.
  bool from_log = false;
};

// How single-candidate batches are gathered into one pipeline batch. window 0 (or max < 2):
// never; every batch is scored on its own.
struct CoalescePolicy {
  std::chrono::milliseconds window{0};  // counted from the oldest queued single-candidate batch
  std::size_t max = 256;                // a group this large is taken at once
  bool enabled() const { return window.count() > 0 && max > 1; }
};
inline constexpr std::chrono::milliseconds kDefaultCoalesceWindow{200};
inline constexpr std::size_t kDefaultCoalesceMax = 256;
// Answered rows kept in memory for retries (about 1 KB each); older answers come from the log.
inline constexpr std::size_t kDefaultKeptAnsweredRows = 4096;

class BatchRegistry {
 public:
  explicit BatchRegistry(CoalescePolicy coalesce = {}, std::size_t keep_answered_rows = kDefaultKeptAnsweredRows)
      : coalesce_(coalesce), keep_answered_rows_(keep_answered_rows) {}

  // After a restart (--resume): one of the log's rows, in log order (`log_index`: its index
  // in /rewards); only its identity is kept, under its batch_id. A later submit of that id whose candidates match the
  // identities is queued from_log (all logged) or with logged_count (partly logged); one
  // that does not match is a conflict.
  void restore(const RewardRow &row, std::uint64_t log_index);
  std::size_t restored() const;       // batches known only from the log, not submitted since
  std::size_t restored_rows() const;  // their rows

  // HTTP side.
  SubmitOutcome submit(const std::string &batch_id, const std::string &fingerprint,
                       std::vector<PreparedCandidate> candidates);
  std::optional<BatchSnapshot> snapshot(const std::string &batch_id) const;
  // Blocks until the batch is done or failed (nullopt: no such batch).
  std::optional<BatchSnapshot> wait(const std::string &batch_id) const;
  // Callers blocked in wait() on this batch now.
  int waiters(const std::string &batch_id) const;
  // True when this id is only known from the log (submit it again to get its results).
  bool only_logged(const std::string &batch_id) const;

  // Main-thread side.
  // The oldest queued batch alone (no coalescing), or nullopt after `timeout`.
  std::optional<QueuedBatch> next(std::chrono::milliseconds timeout);
  // The next pipeline batch: the oldest queued batch alone when it has more than one
  // candidate (or coalescing is off); otherwise every queued single-candidate batch, oldest
  // first, up to the cap, taken once the oldest has waited the window, the cap is reached
  // or the registry is closed. Nullopt when nothing is ready within `timeout`. Every member
  // is running until it is completed (or failed) on its own.
  std::optional<std::vector<QueuedBatch>> next_group(std::chrono::milliseconds timeout);
  void row_written(const std::string &batch_id);  // progress of a running batch
  // `written`: the log rows the scoring wrote (for a coalesced group, all of the group's); kept
  // when the batch is evicted, so its retry reads only that part of the log. Default: unknown.
  void complete(const std::string &batch_id, std::vector<RewardRow> rows, LogRowRange written = {});
  // A `from_log` batch: `logged` are the log's rows of its id; they answer it in the order
  // of `candidates` (the request's). Rows that do not match the candidates fail it.
  void complete_from_log(const std::string &batch_id, const std::vector<PreparedCandidate> &candidates,
                         const std::vector<RewardRow> &logged);
  // One running batch fails with `error` (its log rows disagree with what was matched; or,
  // `retry_later`, a stop for a requeue cut it short).
  void fail(const std::string &batch_id, const std::string &error, bool retry_later = false);
  // Scoring broke: every batch not done fails with `error`, and no new batch is taken.
  void fail_all(const std::string &error);
  // Every queued batch (not the running ones) fails with `error`; returns how many.
  std::size_t fail_queued(const std::string &error);
  // Every running batch fails with `error` (a stop cut them short): send them again later.
  void fail_running(const std::string &error);
  // No new batches from now on (queued and running ones still finish). A submit is refused
  // with `reason`, or a plain "stopping" message when it is empty. Safe to call again.
  void close(const std::string &reason = "");
  bool is_closed() const;
  bool idle() const;  // nothing queued, nothing running

  // Each problem's current ladder stage, as the main thread last published it (after the
  // advances a batch earned, before its results go out), for trainers that must write the
  // next batch for the right stage.
  void set_stages(std::map<std::string, std::string> stages);
  std::map<std::string, std::string> stages() const;

  // Counters for the log line at exit: batches answered or known (in memory or only by id).
  std::size_t batches() const;
  // Batches whose rows are held in memory (bounded by keep_answered_rows, plus those not done).
  std::size_t batches_in_memory() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    std::string fingerprint;
    Clock::time_point queued_at;
    BatchState state = BatchState::queued;
    std::size_t done = 0, total = 0;
    std::vector<PreparedCandidate> candidates;  // until it is taken
    std::size_t logged = 0;                     // candidates with a row from before a restart
    LogRowRange log_rows;                       // where they (or all its rows) lie in the log
    std::vector<RewardRow> results;
    std::string error;
    bool retry_later = false;
    bool from_log = false;
    mutable int waiters = 0;  // callers blocked in wait() (const): the entry is not evicted under them
  };
  BatchSnapshot snapshot_locked(const std::string &batch_id, const Entry &entry) const;
  std::string closed_message() const;  // with the mutex held
  bool coalescable(const Entry &entry) const;
  // Moves these queued batches to running and hands them out (mutex held).
  std::vector<QueuedBatch> take_locked(const std::vector<std::string> &batch_ids);
  // Marks the entry answered and evicts the oldest answered entries past the bound.
  void answered_locked(const std::string &batch_id);

  CoalescePolicy coalesce_;
  std::size_t keep_answered_rows_;

  mutable std::mutex mutex_;
  std::condition_variable queue_changed_;
  mutable std::condition_variable finished_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::string> stages_;
  LoggedIdentities restored_;  // --resume: batches known only from the log
  std::deque<std::string> queue_;
  std::set<std::string> running_;
  std::deque<std::string> answered_;  // done entries still in memory, oldest first
  std::size_t answered_rows_ = 0;     // their rows
  struct Evicted {
    std::string fingerprint;
    LogRowRange log_rows;  // where its rows lie (the whole log when not known)
  };
  std::map<std::string, Evicted> evicted_;  // batch id -> answered long ago, rows only in the log
  bool closed_ = false;
  std::string closed_reason_;
};

}  // namespace hpcreward
