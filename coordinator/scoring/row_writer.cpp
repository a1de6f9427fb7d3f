#include "coordinator/scoring/row_writer.hpp"

#include <chrono>

#include "common/problem_catalog.hpp"
#include "common/sha256.hpp"
#include "coordinator/ranks/problem_support.hpp"
#include "prompts/model_feedback.hpp"
#include "techniques/summary_text.hpp"

namespace hpcreward {
namespace {

double unix_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::optional<double> rank_blas_gflops(const std::map<int, RankInfo> &ranks, int rank, const std::string &problem) {
  const Problem *spec = find_problem(problem);
  auto it = ranks.find(rank);
  if (!spec || it == ranks.end()) return std::nullopt;
  const double peak = spec->precision == Precision::f32    ? it->second.peak_gflops_f32
                      : spec->precision == Precision::f16  ? it->second.peak_gflops_f16
                      : spec->precision == Precision::bf16 ? it->second.peak_gflops_bf16
                                                           : it->second.peak_gflops_f64;
  return peak > 0 ? std::optional<double>(peak) : std::nullopt;
}

RowWriter::RowWriter(RowSink &sink, const RewardTable &rewards, SqdState &sqd, const std::map<int, RankInfo> &rank_info,
                     ScoringObserver *observer)
    : sink_(sink), rewards_(rewards), sqd_(sqd), rank_info_(rank_info), observer_(observer) {}

RewardRow RowWriter::measured_row(const PreparedCandidate &candidate, const BenchResult &result,
                                  std::uint64_t seed) const {
  // The device column: what the rank reported, else its kind ("cpu").
  std::string device = result.device;
  if (device.empty()) {
    auto it = rank_info_.find(result.rank);
    device = it != rank_info_.end() ? it->second.kind : std::string(kCpuRankKind);
  }
  return make_row(candidate, result.measurement, seed, result.rank, result.host, device);
}

RewardRow RowWriter::decided_row(const PreparedCandidate &candidate, const Measurement &decided,
                                 const std::string &host) const {
  return make_row(candidate, decided, 0, 0, host, "");
}

std::string RowWriter::feedback_on(const PreparedCandidate &candidate, const Measurement &m) const {
  prompts::FeedbackInputs feedback;
  const std::string techniques = m.techniques.detected ? techniques_text(m.techniques) : "";
  const std::string tiles = m.techniques.detected ? tile_sizes_text(m.techniques.tile_sizes) : "";
  feedback.status = to_string(m.status);
  feedback.reason = m.reason;  // whole: the row keeps 256 bytes of it
  feedback.problem = find_problem(candidate.problem);
  feedback.stage = sqd_.config().find(candidate.stage);
  feedback.gflops = m.gflops;
  feedback.yardsticks = m.yardsticks;
  feedback.techniques = techniques;
  if (m.techniques.detected) feedback.loop_order = m.techniques.loop_order;
  feedback.tile_sizes = tiles;
  return prompts::model_feedback(feedback);
}

RewardRow RowWriter::make_row(const PreparedCandidate &candidate, const Measurement &m, std::uint64_t seed, int rank,
                              const std::string &host, const std::string &device,
                              const std::string &measurement_feedback) const {
  RewardRow row;
  row.candidate_id = candidate.id;
  row.batch_id = candidate.batch_id;
  row.problem = candidate.problem;
  row.stage = candidate.stage;
  row.episode = candidate.episode;
  row.turn = candidate.turn;
  row.status = std::string(to_string(m.status));
  row.reason = m.reason;
  row.reward = rewards_.reward_for(m);
  if (const std::string note = rewards_.missing_yardstick_note(m); !note.empty()) row.reason = note;
  row.gflops = m.gflops;
  row.openblas_gflops = m.yardsticks.openblas;
  row.cublas_gflops = m.yardsticks.cublas;
  row.cublaslt_gflops = m.yardsticks.cublaslt;
  row.median_s = m.median_s;
  row.min_s = m.min_s;
  row.iqr_s = m.iqr_s;
  row.cv = m.cv;
  row.reps = m.reps;
  row.max_error = m.max_error;
  row.compile_s = m.compile_s;
  row.verify_s = m.verify_s;
  row.time_s = m.time_s;
  row.source_sha256 = candidate.code.empty()         ? ""
                      : candidate.code_sha256.empty() ? sha256_hex(candidate.code)
                                                      : candidate.code_sha256;
  row.rank = rank;
  row.host = host;
  row.device = device;
  row.time = unix_seconds();
  row.seed = seed;
  if (m.techniques.detected) {
    row.techniques = techniques_text(m.techniques);
    row.loop_order = m.techniques.loop_order;
    row.tile_sizes = tile_sizes_text(m.techniques.tile_sizes);
  }
  row.feedback = prompts::with_judged_part(
      candidate.judged, measurement_feedback.empty() ? feedback_on(candidate, m) : measurement_feedback);
  return row;
}

RewardRow RowWriter::write(RewardRow row, const PreparedCandidate &candidate, const Measurement &measurement,
                           double *bonus) {
  ArchiveOutcome archive = sqd_.update_archive(row, measurement.techniques, rows_in_log_, row.time);
  row.archive = archive.change;
  const double scaled = archive.bonus * rewards_.shaping_scale();  // in the mode's units
  row.reward += scaled;
  if (bonus) *bonus = scaled;
  sink_.append(row, candidate.code);
  if (archive.record) sink_.append_archive(*archive.record);
  return counted(std::move(row));
}

RewardRow RowWriter::write_reused(const PreparedCandidate &candidate, const std::string &key,
                                  const CachedMeasurement &origin, double bonus) {
  // The measurement was offered to the archive once, with its own row: not again.
  RewardRow row =
      make_row(candidate, origin.measurement, origin.seed, origin.rank, origin.host, origin.device, origin.feedback);
  row.reward += bonus;
  row.measurement_key = key;
  row.measured_as = origin.candidate_id;
  row.measured_batch = origin.batch_id;
  sink_.append(row, candidate.code);
  return counted(std::move(row));
}

RewardRow RowWriter::counted(RewardRow row) {
  sqd_.observe(row, rank_blas_gflops(rank_info_, row.rank, row.problem));
  ++rows_in_log_;
  ++rows_written_;
  if (observer_) observer_->row_written(row, rows_written_ + skipped_, total_);
  return row;
}

void RowWriter::log_advances(const std::vector<std::string> &problems) {
  for (const StageEvent &event : sqd_.advance(problems, unix_seconds())) {
    sink_.append_event(to_record(event, rows_in_log_));
    if (observer_) observer_->stage_advanced(event);
  }
}

}  // namespace hpcreward
