#pragma once
// The coordinator's staged quality-diversity state: each problem's place on the
// stage ladder and the archive of elites. ScoringRun asks it which stage a batch runs in
// and tells it every row; after a restart it is rebuilt from the log's rows and events.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/problem.hpp"
#include "common/technique_summary.hpp"
#include "results/log_records.hpp"
#include "results/reward_row.hpp"
#include "stages/advancement.hpp"
#include "stages/ladder_config.hpp"
#include "stages/qd_archive.hpp"

namespace hpcreward {

// What one row did to the archive: the change (for the row's `archive` column), the
// record to log and the shaping bonus in the ladder's units (0 unless shaping is on, and for
// a source the cell was offered before); the row writer scales it with the reward mode.
struct ArchiveOutcome {
  std::string change;  // "new_niche", "new_elite" or ""
  std::optional<ArchiveRecord> record;
  double bonus = 0;
};

// A row of the log as the stage rules see it; blas_gflops comes from the rank's baseline, not
// the row. Throws std::invalid_argument when the row's status is not a known status name.
StageObservation observation_from_row(const RewardRow &row, std::optional<double> blas_gflops = {});

class SqdState {
 public:
  // `config` must outlive the state. Stages the ranks cannot run (unsupported_stages: AVX-512
  // where a CPU rank lacks it, or refused by the caller under the config's policy; wgmma or TMA
  // where a GPU rank is not a Hopper) are skipped.
  SqdState(const LadderConfig &config, const RankSupport &support);

  const LadderConfig &config() const { return *config_; }
  // Ladder stages this host cannot run, with the reason each is skipped.
  const std::vector<UnsupportedStage> &unsupported() const { return unsupported_; }
  // The problem's current ladder stage (the first supported one for a new problem after
  // advance() has run for it).
  const std::string &current_stage(const std::string &problem);
  // Why this host cannot run `stage`, for candidates that name it; nullopt if it can.
  std::optional<std::string> unsupported_reason(const std::string &stage) const;

  // Applies the archive to a row about to be written at `row_index` (ok rows only; the
  // descriptor comes from the measurement). Does not touch the stage statistics.
  ArchiveOutcome update_archive(const RewardRow &row, const TechniqueSummary &techniques,
                                std::uint64_t row_index, double now);
  // Counts a written row toward its problem's stage rules. `blas_gflops`: OpenBLAS on the
  // rank that measured it, for best_fraction_of_blas.
  void observe(const RewardRow &row, std::optional<double> blas_gflops);
  // Every advance now due, for `problems` (skipping unsupported stages included), in order.
  std::vector<StageEvent> advance(const std::vector<std::string> &problems, double now);

  const QdArchive &archive() const { return archive_; }
  std::map<std::string, std::string> stages() const;  // problem -> current stage

  // Rebuilds the state a run had: rows and events from its log, in log order. Rows are the
  // truth for the archive; `missing_archive` receives the records a crash kept out of
  // /archive (rows after the last logged record that changed the archive).
  static SqdState rebuild(const LadderConfig &config, const RankSupport &support,
                          const std::vector<RewardRow> &rows,
                          const std::vector<StageEventRecord> &events,
                          const std::vector<ArchiveRecord> &archive_records,
                          const std::function<std::optional<double>(const RewardRow &)> &blas_gflops,
                          std::vector<ArchiveRecord> &missing_archive);

 private:
  ProblemProgress &progress(const std::string &problem);
  // unsupported_ and the ladder stages `problem` cannot pass on any rank (unsupported_for_problem).
  std::vector<UnsupportedStage> unsupported_for(const std::string &problem) const;

  const LadderConfig *config_;
  RankSupport support_;
  std::vector<UnsupportedStage> unsupported_;
  std::map<std::string, ProblemProgress> progress_;
  QdArchive archive_;
};

// A row's technique descriptor as stored in the log, back as a summary (archive replay).
TechniqueSummary summary_from_row(const RewardRow &row);
StageEventRecord to_record(const StageEvent &event, std::uint64_t rows_before);

}  // namespace hpcreward
