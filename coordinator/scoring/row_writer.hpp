#pragma once
// What every row of a scoring run goes through, in one place: its reward (the reward table),
// for a measured row the archive's verdict and shaping bonus, the sink, its stage's
// statistics (SqdState::observe) and the observer's progress. Also logs the stage advances
// due between batches. Keeps no rows: a long run's memory stays flat.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/messages.hpp"
#include "coordinator/input/candidate_input.hpp"
#include "coordinator/scoring/measurement_cache.hpp"
#include "coordinator/rewards/reward_table.hpp"
#include "coordinator/scoring/row_sink.hpp"
#include "coordinator/scoring/scoring_observer.hpp"
#include "coordinator/rewards/sqd_state.hpp"

namespace hpcreward {

class RowWriter {
 public:
  // `rank_info`: each rank's kind (a row's device when the rank named none) and BLAS baselines.
  // `observer` may be null; everything given must outlive the writer.
  RowWriter(RowSink &sink, const RewardTable &rewards, SqdState &sqd, const std::map<int, RankInfo> &rank_info,
            ScoringObserver *observer);

  // A rank's answer for `candidate` as a row (not yet written); `seed`: its inputs.
  RewardRow measured_row(const PreparedCandidate &candidate, const BenchResult &result, std::uint64_t seed) const;
  // The row of a candidate the coordinator decided alone (its verdict), on `host`.
  RewardRow decided_row(const PreparedCandidate &candidate, const Measurement &decided, const std::string &host) const;

  // What the model is told about `measurement` (prompts::model_feedback, from its whole reason),
  // before the note of which part of the answer was judged, which every row adds for its own
  // candidate: a cached measurement keeps this, so a row that reuses it says what this one did.
  std::string feedback_on(const PreparedCandidate &candidate, const Measurement &measurement) const;

  // Offers a measured row to the archive (its shaping bonus, scaled with the reward mode:
  // RewardTable::shaping_scale, goes into the reward and, if asked, `*bonus`), then writes it.
  // Returns it as written.
  RewardRow write(RewardRow row, const PreparedCandidate &candidate, const Measurement &measurement,
                  double *bonus = nullptr);
  // Writes a row that reuses `origin`'s measurement under `key`, with `bonus` added to its
  // reward (the measuring row's bonus in the same batch, else 0); the archive is not asked
  // again. Returns it as written.
  RewardRow write_reused(const PreparedCandidate &candidate, const std::string &key, const CachedMeasurement &origin,
                         double bonus);
  // Logs the advances due for `problems` now.
  void log_advances(const std::vector<std::string> &problems);

  // Progress (the observer's done of total): `count` more candidates to account for, and
  // `count` accounted for by rows already logged.
  void expect(std::size_t count) { total_ += count; }
  void skip(std::size_t count) { skipped_ += count; }
  // Rows in the log: those before this session (set by a resume) plus those written since.
  void continue_log(std::size_t rows) { rows_in_log_ = rows; }
  std::size_t rows_in_log() const { return rows_in_log_; }
  std::size_t rows_written() const { return rows_written_; }

 private:
  // `measurement_feedback`: feedback_on's text when already known (a reused measurement), else "".
  RewardRow make_row(const PreparedCandidate &candidate, const Measurement &measurement, std::uint64_t seed, int rank,
                     const std::string &host, const std::string &device,
                     const std::string &measurement_feedback = "") const;
  // Counts a written row toward its stage and reports it; returns it.
  RewardRow counted(RewardRow row);

  RowSink &sink_;
  const RewardTable &rewards_;
  SqdState &sqd_;
  const std::map<int, RankInfo> &rank_info_;
  ScoringObserver *observer_;
  std::size_t rows_in_log_ = 0;
  std::size_t rows_written_ = 0;
  std::size_t total_ = 0;
  std::size_t skipped_ = 0;
};

// The BLAS GFLOPS a rank measured at start for a problem's precision, if known: OpenBLAS
// on CPU ranks, cuBLAS on GPU ranks (f16: peak_gflops_f16).
std::optional<double> rank_blas_gflops(const std::map<int, RankInfo> &ranks, int rank, const std::string &problem);

}  // namespace hpcreward
