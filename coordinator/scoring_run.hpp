#pragma once
// Scores a list of candidates on the benchmark ranks, batch by batch (a batch: consecutive
// candidates with the same batch_id). Before a batch starts, due stage advances are logged
// and every candidate that names no stage gets its problem's current stage; decided
// candidates (format errors) are logged at once, the rest go to ranks of their problem's kind
// (C to "cpu" ranks, CUDA to "gpu" ranks) as each has a free slot (Scheduler). Every
// candidate ends as exactly one row in the sink.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/messages.hpp"
#include "coordinator/candidate_input.hpp"
#include "coordinator/reward_table.hpp"
#include "coordinator/row_sink.hpp"
#include "coordinator/sqd_state.hpp"
#include "coordinator/transport.hpp"

namespace hpcreward {

struct ScoringContext {
  std::vector<int> ranks;   // benchmark ranks to use
  std::string host;         // the coordinator's host, for rows it decides alone
  std::uint64_t seed = 0;   // run seed; each candidate's input seed derives from it
  // Per rank: its kind and slots (a rank missing here is a CPU rank with one slot) and its
  // BLAS baselines (OpenBLAS on CPU ranks, cuBLAS on GPU ranks: best_fraction_of_blas).
  std::map<int, RankInfo> rank_info;
};

// Called after each row is written, with how many rows are done out of how many.
using ProgressCallback = std::function<void(const RewardRow &, std::size_t done, std::size_t total)>;
using StageEventCallback = std::function<void(const StageEvent &)>;

class ScoringRun {
 public:
  ScoringRun(BenchTransport &transport, RowSink &sink, const RewardTable &rewards, SqdState &sqd,
             ScoringContext context, ProgressCallback progress = {}, StageEventCallback on_event = {});

  // `already_logged`: the rows a resumed run's log holds. Their candidates (by id) are not
  // scored again; a batch they partly cover keeps the stage its logged rows had.
  // Returns the rows written now, in order.
  std::vector<RewardRow> score(std::vector<PreparedCandidate> candidates,
                               const std::vector<RewardRow> &already_logged = {});

  // Serve mode: one batch as it arrives (ids need only be unique within it). `logged`: rows
  // of this batch already in the log (a retry after a restart); their candidates are not
  // scored again. Returns one row per candidate, in the batch's order (logged rows included).
  // Due stage advances are logged before the batch starts, unless it was partly logged.
  std::vector<RewardRow> score_one_batch(std::vector<PreparedCandidate> batch,
                                         const std::vector<RewardRow> &logged = {});
  // Serve mode after a restart: the log already holds `rows` rows (archive row indexes and
  // input seeds go on from there).
  void continue_log(std::size_t rows) {
    rows_in_log_ = rows;
    sequence_base_ = static_cast<std::int64_t>(rows);
  }
  // Logs the advances due for these problems now (serve mode calls it when it drains).
  void finish(const std::vector<std::string> &problems) { log_advances(problems); }
  // Rows in the log: those before this session plus those written since.
  std::size_t rows_in_log() const { return rows_in_log_; }

 private:
  // Scores candidates [begin, end); `logged_row[i]` is candidate i's row from before a resume.
  // Returns their rows in order, logged ones included.
  std::vector<RewardRow> score_batch(std::vector<PreparedCandidate> &candidates, std::size_t begin, std::size_t end,
                   const std::vector<const RewardRow *> &logged_row, std::set<std::string> &seen_ids);
  void log_advances(const std::vector<std::string> &problems);
  RewardRow make_row(const PreparedCandidate &candidate, const Measurement &measurement,
                     std::uint64_t seed, int rank, const std::string &host, const std::string &device) const;
  // The device column of a rank's row: what the rank reported, else its kind ("cpu").
  std::string device_of(const BenchResult &result) const;
  // Applies the archive, appends the row and counts it toward its stage; returns it as written.
  const RewardRow &write(RewardRow row, const PreparedCandidate &candidate, const Measurement &measurement);
  std::optional<double> blas_gflops(const RewardRow &row) const;

  BenchTransport &transport_;
  RowSink &sink_;
  const RewardTable &rewards_;
  SqdState &sqd_;
  ScoringContext context_;
  ProgressCallback progress_;
  StageEventCallback on_event_;
  std::vector<RewardRow> rows_;
  std::size_t rows_in_log_ = 0;  // rows before this session plus rows_
  std::size_t total_ = 0;
  std::size_t skipped_ = 0;
  std::int64_t sequence_base_ = 0;  // serve mode: candidates of earlier batches, for seeds
};

// A well-mixed per-candidate seed (splitmix64 of the run seed and the sequence number).
std::uint64_t candidate_seed(std::uint64_t run_seed, std::int64_t sequence);

// For each candidate, the logged row (from before a resume) that accounts for it, or null.
// Each logged row accounts for one candidate with its id, in input order.
std::vector<const RewardRow *> match_logged(const std::vector<PreparedCandidate> &candidates,
                                            const std::vector<RewardRow> &logged);

// The BLAS GFLOPS a rank measured at start for a problem's precision, if known: OpenBLAS
// on CPU ranks, cuBLAS on GPU ranks (f16: peak_gflops_f16).
std::optional<double> rank_blas_gflops(const std::map<int, RankInfo> &ranks, int rank,
                                       const std::string &problem);

}  // namespace hpcreward
