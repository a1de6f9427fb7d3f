#pragma once
// Scores candidates on the benchmark ranks, batch by batch (a batch: consecutive candidates
// with the same batch_id, or a served request). A batch is admitted: due stage advances are
// logged and every candidate that names no stage gets its problem's current stage (so a batch
// runs in the stage its problem had when it was admitted); decided candidates (format errors)
// are logged at once, the rest are queued for ranks of their problem's kind (C to "cpu"
// ranks, CUDA to "gpu" ranks). Ranks take queued tasks as each has a free slot (Scheduler),
// FIFO per kind across every batch in flight, so batches admitted together share the ranks in
// order of admission; each batch is done when its own candidates have their rows. Every
// candidate ends as exactly one row in the sink (row_writer.hpp). A file is scored one batch
// at a time (its batches are a recorded sequence: each runs in the stage the ones before it
// earned); serve mode admits batches as they arrive (serve_loop.hpp).
//
// Ranks that stop answering are quarantined for the rest of the run (rank_quarantine.hpp).
// A stop request (a requeue: SIGUSR1) sends no new task, waits at most the grace for the
// tasks the ranks hold and gives up the batches not done (stop_grace.hpp); tasks not answered
// by then have no row (cut_short()), so a resume scores exactly them: candidates the log
// holds get their logged rows (logged_rows.hpp).
//
// Identical candidates (same measurement key: code, problem, stage and its rules) are
// measured once (repeat_sharing.hpp): in one batch they share the first one's answer and
// reward; in a later batch a cached measurement answers at once, its reward recomputed by the
// reward table (no archive bonus: the archive already holds it). A reused row names the row
// it reuses (measured_as, measured_batch) and counts toward stage rules like any row.
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/messages.hpp"
#include "coordinator/input/candidate_input.hpp"
#include "coordinator/scoring/logged_rows.hpp"
#include "coordinator/ranks/rank_quarantine.hpp"
#include "coordinator/scoring/repeat_sharing.hpp"
#include "coordinator/rewards/reward_table.hpp"
#include "coordinator/scoring/row_sink.hpp"
#include "coordinator/scoring/row_writer.hpp"
#include "coordinator/ranks/scheduler.hpp"
#include "coordinator/scoring/scoring_observer.hpp"
#include "coordinator/rewards/sqd_state.hpp"
#include "coordinator/scoring/stop_grace.hpp"
#include "coordinator/ranks/transport.hpp"

namespace hpcreward {

struct ScoringContext {
  std::vector<int> ranks;   // benchmark ranks to use
  std::string host;         // the coordinator's host, for rows it decides alone
  std::uint64_t seed = 0;   // run seed; each candidate's input seed derives from it
  // Per rank: its kind and slots (a rank missing here is a CPU rank with one slot), its
  // BLAS baselines (OpenBLAS on CPU ranks, cuBLAS on GPU ranks: best_fraction_of_blas) and
  // its task limit (task_limit_s; 0 or a rank missing here: no liveness deadline).
  std::map<int, RankInfo> rank_info;
  // A rank holding tasks that has not answered for its task limit plus this margin is
  // quarantined (--rank-deadline-margin-s).
  double rank_deadline_margin_s = 60;
  // Asked before each batch and between waits; once true, the run is stopping: no new task
  // is sent and the ranks get stop_grace_s (--stop-grace-s) to answer what they hold.
  std::function<bool()> stop_requested{};
  double stop_grace_s = 60;
  // The clock of deadlines and waits; empty: std::chrono::steady_clock::now. Tests pass a
  // fake one that their fake transport moves on.
  std::function<std::chrono::steady_clock::time_point()> now{};
  // Measurements kept for identical candidates of later batches (--repeat-cache-entries);
  // 0 turns reuse off altogether, in-batch sharing included: every candidate is measured.
  std::size_t repeat_cache_entries = kDefaultRepeatCacheEntries;
};

class ScoringRun {
 public:
  // `observer` (may be null) must outlive the run.
  ScoringRun(BenchTransport &transport, RowSink &sink, const RewardTable &rewards, SqdState &sqd,
             ScoringContext context, ScoringObserver *observer = nullptr);
  // Its parts refer to each other (the row writer to the context's ranks): never copied or moved.
  ScoringRun(const ScoringRun &) = delete;
  ScoringRun &operator=(const ScoringRun &) = delete;

  // `already_logged`: the rows a resumed run's log holds. Their candidates (by id) are not
  // scored again, and their measurements answer identical candidates as before the restart;
  // a batch they partly cover keeps the stage its logged rows had.
  // Returns how many rows it wrote now; the rows themselves went to the sink (and the
  // observer), in order: none is kept, so memory does not grow with the run.
  std::size_t score(std::vector<PreparedCandidate> candidates, const std::vector<RewardRow> &already_logged = {});

  // Serve mode, batches in flight together. A served batch (ids need only be unique within
  // it), or a coalesced group of single-candidate requests as one batch (candidates of
  // several batch_ids: ids need only be unique per batch_id; each row keeps its candidate's
  // batch_id). `logged`: rows of this batch already in the log (a retry after a restart);
  // their candidates are not scored again. Due stage advances of its problems are logged
  // first, unless it was partly logged. Returns the batch's token; progress() hands it back
  // once it is done.
  using BatchToken = std::uint64_t;
  BatchToken admit(std::vector<PreparedCandidate> batch, const std::vector<RewardRow> &logged = {});
  struct DoneBatch {
    BatchToken token = 0;
    std::vector<RewardRow> rows;  // one per candidate, in the batch's order (logged rows included)
    bool cut_short = false;       // a stop gave it up: some rows are missing (default-constructed)
  };
  // Sends tasks, takes answers for at most `wait` (less when a deadline or the stop's grace
  // comes first), and returns the batches done since the last call, in the order they were
  // done. Once a stop's grace ends (or no task is out), every batch not done is given up.
  std::vector<DoneBatch> progress(std::chrono::milliseconds wait);
  // Admitted batches not yet handed back by progress().
  std::size_t in_flight() const { return flights_.size() + done_.size(); }
  // One batch alone: admit() and progress() until it is done; its rows.
  std::vector<RewardRow> score_one_batch(std::vector<PreparedCandidate> batch,
                                         const std::vector<RewardRow> &logged = {});
  // Serve mode after a restart: the log already holds `rows` rows (archive row indexes and
  // input seeds go on from there).
  void continue_log(std::size_t rows) {
    rows_.continue_log(rows);
    sequence_base_ = static_cast<std::int64_t>(rows);
  }
  // The same, given the log's rows: their measurements also answer identical candidates.
  void continue_log(const std::vector<RewardRow> &rows) {
    continue_log(rows.size());
    repeats_.recall(rows);
  }
  // Logs the advances due for these problems now (serve mode calls it when it drains).
  void finish(const std::vector<std::string> &problems) { rows_.log_advances(problems); }
  // Rows in the log: those before this session plus those written since.
  std::size_t rows_in_log() const { return rows_.rows_in_log(); }
  // A stop request left candidates without a row (score: the ones after; score_one_batch:
  // some of its batch, whose other rows it returned default-constructed).
  bool cut_short() const { return cut_short_; }
  // A stop was requested (whether or not it cut anything short).
  bool stopping() const { return grace_.stopping(); }
  // Tasks still out on (not quarantined) ranks when the stop's grace ended: those ranks are
  // busy with them for up to their task limit before they read the stop.
  std::size_t unanswered_at_stop() const { return unanswered_at_stop_; }
  // The ranks quarantined in this run, in order, as logged.
  const std::vector<RankEventRecord> &lost_ranks() const { return quarantine_.lost(); }

 private:
  // One admitted batch: candidates [begin, end) of `*candidates` (the file's, or `owned` in
  // serve mode). A task's sequence is `base` + (index - begin): unique in the run, and the
  // candidate's place in the run's order, from which its input seed derives.
  struct Flight {
    BatchToken token = 0;
    std::vector<PreparedCandidate> owned;
    std::vector<PreparedCandidate> *candidates = nullptr;
    std::size_t begin = 0, end = 0;
    std::int64_t base = 0;
    // By index, the row each candidate had before a resume (null: none): the file's, or owned.
    const std::vector<const RewardRow *> *logged_row = nullptr;
    std::vector<const RewardRow *> owned_logged_row;
    std::vector<RewardRow> rows;                // rows[i - begin]: candidate i's
    std::size_t rows_done = 0;                  // rows taken from the log or written
    std::set<std::string> own_seen;             // serve mode: the ids taken in this batch
    std::set<std::string> *seen = nullptr;      // own_seen, or the file's (ids unique in a run)
    std::size_t size() const { return end - begin; }
    const RewardRow *logged(std::size_t i) const { return (*logged_row)[i]; }
    PreparedCandidate &candidate(std::size_t i) { return (*candidates)[i]; }
    std::size_t index_of(std::int64_t sequence) const { return begin + static_cast<std::size_t>(sequence - base); }
    std::int64_t sequence_of(std::size_t i) const { return base + static_cast<std::int64_t>(i - begin); }
  };

  // The batch's admission, in order: its logged rows, the stage, its tasks queued.
  void start(Flight &flight);
  // The rows the log holds of the batch (a resume): they are its rows, their ids are taken.
  LoggedPart take_logged_rows(Flight &flight);
  // Gives a candidate its stage and refuses a duplicate id or a stage this host cannot run.
  void settle(Flight &flight, PreparedCandidate &candidate, const LoggedPart &logged);
  void write_decided(Flight &flight, std::size_t i);
  // Queues a candidate for a rank, or answers it from an identical one's measurement.
  void queue_or_share(Flight &flight, std::size_t i);
  // Candidate i's row is in; the batch is done once every candidate has one.
  void set_row(Flight &flight, std::size_t i, RewardRow row);
  void send_tasks();
  void take_answer(const BenchResult &result);
  // A rank's answer: its row, then the rows of the identical candidates of the batch that
  // waited for it; the cache keeps the measurement.
  void record_result(const BenchResult &result);
  // The stop's grace ended with candidates still out: every batch not done is given up.
  void give_up_flights();
  // Quarantines every overdue rank (the scheduler gives its tasks back) and logs it; throws
  // NoRanksLeft when a kind with queued tasks has no rank left (unless the run is stopping).
  void quarantine_overdue();
  // The batch a task belongs to, and the candidate's index there.
  std::pair<Flight *, std::size_t> locate(std::int64_t sequence);
  std::string candidate_id_of(std::int64_t sequence);
  // Moves a batch with every row in from flights_ to done_.
  void finish_if_done(Flight &flight);
  // Moves a batch from flights_ to done_ (`cut_short`: a stop gave it up).
  void end_flight(Flight &flight, bool cut_short);
  Flight &add_flight();

  using Clock = std::chrono::steady_clock;
  Clock::time_point clock() const { return context_.now ? context_.now() : Clock::now(); }
  // True once a stop was requested (starting its grace the first time; `held`: tasks out).
  bool poll_stop(std::size_t held);
  // How long the next wait for a result may last: until the next deadline, the end of the
  // grace, or the next look at the stop request.
  std::chrono::milliseconds wait_time() const;
  // What must be unique among a batch's candidates: the id, or in serve mode the id within
  // its batch_id.
  std::string seen_key(const PreparedCandidate &candidate) const {
    return ids_per_batch_ ? candidate.batch_id + '\n' + candidate.id : candidate.id;
  }
  void note(const std::string &line) const {
    if (observer_) observer_->note(line);
  }

  BenchTransport &transport_;
  RowSink &sink_;  // rows and stage events go through rows_; rank events come here
  SqdState &sqd_;
  ScoringContext context_;
  ScoringObserver *observer_;
  RowWriter rows_;
  RankQuarantine quarantine_;
  Scheduler scheduler_;  // every batch's tasks, FIFO per kind
  RepeatSharing repeats_;
  StopGrace grace_;
  std::map<BatchToken, Flight> flights_;             // admitted, not done
  std::map<std::int64_t, BatchToken> flight_at_;     // first sequence -> its batch (batches with candidates)
  std::deque<DoneBatch> done_;                       // done, not yet handed back
  BatchToken next_token_ = 1;
  bool ids_per_batch_ = false;  // serve mode
  bool cut_short_ = false;
  std::size_t unanswered_at_stop_ = 0;
  std::int64_t sequence_base_ = 0;  // serve mode: candidates of earlier batches (the next batch's base)
};

// A well-mixed per-candidate seed (splitmix64 of the run seed and the sequence number).
std::uint64_t candidate_seed(std::uint64_t run_seed, std::int64_t sequence);

}  // namespace hpcreward
