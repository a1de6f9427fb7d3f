#pragma once
// Serve mode's main-thread loop: takes batches from the registry as they are accepted, in
// order, and admits them to scoring (all MPI stays on this thread); several are in flight
// together (up to --batches-in-flight), their candidates queued for the ranks in order of
// admission, and each batch is answered as soon as its own candidates are done. A batch runs
// in the stage its problem had when it was admitted; the stage advances its rows earned are
// logged (and published) before it is answered. On SIGTERM/SIGINT it takes no new batches,
// finishes those queued or in flight, and returns. On SIGUSR1 (a requeue) it takes no new
// batches, fails the queued ones (retry after the restart), lets the batches in flight finish
// within the stop grace (ScoringRun) and returns; those the grace cut short fail (retry).
//
// A coalesced group of single-candidate batches (BatchRegistry::next_group) is admitted as one
// batch: one admission with every member's candidate (each keeps its own batch_id), one
// `drained` after it, then each member completes with its own row.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "coordinator/serving/batch_registry.hpp"

namespace hpcreward {

// How the loop scores: batches admitted as they are taken, handed back as each is done
// (ScoringRun in production: admit, progress).
class BatchScorer {
 public:
  virtual ~BatchScorer() = default;
  // Takes a batch into flight (for a coalesced group the members' candidates, in order:
  // merge_group); returns its token.
  virtual std::uint64_t admit(QueuedBatch &batch) = 0;
  struct Done {
    std::uint64_t token = 0;
    std::vector<RewardRow> rows;  // a row per candidate, in the batch's order
    bool cut_short = false;       // a requeue stop gave it up: its rows are incomplete
  };
  // Waits at most `wait` for progress; the batches done since the last call.
  virtual std::vector<Done> progress(std::chrono::milliseconds wait) = 0;
};

struct ServeHooks {
  // Scores batches in flight together. Empty: `score` scores each batch alone, one at a time.
  std::shared_ptr<BatchScorer> scorer;
  // Scores one batch; returns a row per candidate in the batch's order (ScoringRun::score_one_batch).
  // For a coalesced group the batch holds the members' candidates in order (merge_group).
  std::function<std::vector<RewardRow>(QueuedBatch &)> score;
  // How many batches (a coalesced group counts as one) may be in flight at once; 0: no limit.
  std::size_t batches_in_flight = 1;
  // Called after each batch, before its results are published, with the problems it scored
  // (ScoringRun::finish: log the stage advances they earned), so a trainer that gets the
  // results already sees the next stage.
  std::function<void(const std::vector<std::string> &problems)> drained;
  // Makes the rows written so far durable before batches are answered (the log flushed): a
  // trainer never holds an answer whose row a crash could lose. Empty: `score` does it.
  std::function<void()> flush;
  // Each problem's current stage, published with every batch's results (BatchRegistry::stages).
  std::function<std::map<std::string, std::string>()> stages;
  // Lines for the operator.
  std::function<void(const std::string &)> note;
  // Whether the last `score` was cut short by a requeue stop (ScoringRun::cut_short): its
  // rows are incomplete, the batch fails (retry). Empty: never. (`scorer` says so per batch.)
  std::function<bool()> cut_short;
  // The log's rows of a batch id, in log order (RewardLogWriter::rows_of_batch): how a batch
  // answered long ago (no longer in the registry's memory), or before a restart, is answered
  // again when it is sent again, and how a batch partly logged before a restart gets its
  // logged rows before the rest is scored. `range`: where they lie (QueuedBatch::log_rows;
  // the whole log when the registry does not know). Empty: such a batch fails.
  std::function<std::vector<RewardRow>(const std::string &batch_id, LogRowRange range)> logged_rows;
  // Rows in the log now (ScoringRun::rows_in_log): read when a batch is admitted and when it
  // is done, the span its rows were written in (batches in flight together share spans), so a
  // retry after its eviction reads only that. Empty: unknown.
  std::function<std::uint64_t()> rows_in_log;
};

// What new requests hear once a requeue stop began (HTTP 503), and what batches that were
// queued, or in flight and cut short, fail with.
inline constexpr const char *kRequeueRefusal =
    "the coordinator is stopping for a requeue (its job's time limit is near, or it was preempted) and takes no "
    "new batches: retry after it restarts (coordinator.json in the run directory names the new endpoint)";
inline constexpr const char *kRequeueRetry =
    "the coordinator stopped for a requeue before this batch was done: retry it after the coordinator restarts; "
    "candidates already logged are answered from the log, the others are scored then";

enum class ServeEnd {
  finished,  // should_stop: every accepted batch done
  requeue,   // should_requeue: stopped before the end
};

// Runs until `should_stop` says so and every accepted batch is done, or until
// `should_requeue` says so (then: the registry closes with kRequeueRefusal, queued batches
// fail with kRequeueRetry, those in flight finish or are cut short by the scorer's stop
// grace and fail with kRequeueRetry). A scoring failure fails every batch not done (their
// waiting requests get 500) and is rethrown.
ServeEnd run_serve_loop(BatchRegistry &registry, const ServeHooks &hooks, const std::function<bool()> &should_stop,
                        const std::function<bool()> &should_requeue = {});

// The requeue stop's part in the registry, at once when the signal is seen: no new batches
// (kRequeueRefusal), the queued ones fail (kRequeueRetry). Safe to call again.
void close_for_requeue(BatchRegistry &registry);

// One pipeline batch of a group: a single member as it is; for several, their candidates
// (and logged rows) in order, with the first member's id.
QueuedBatch merge_group(const std::vector<QueuedBatch> &group);
// Completes each member of `group` with its slice of `rows` (one row per candidate, in order).
void complete_group(BatchRegistry &registry, const std::vector<QueuedBatch> &group, std::vector<RewardRow> rows,
                    LogRowRange written = {});

// --resume: the identities of the log's rows (not the rows) into the registry, grouped by
// batch_id. `rows`: all of /rewards in order (rows[i] is the log's row i). Returns how many
// batches.
std::size_t restore_logged_batches(BatchRegistry &registry, const std::vector<RewardRow> &rows);

}  // namespace hpcreward
