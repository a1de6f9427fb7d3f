#include "coordinator/scoring_run.hpp"

#include <chrono>
#include <set>
#include <stdexcept>

#include "common/problem.hpp"
#include "common/sha256.hpp"
#include "coordinator/problem_support.hpp"
#include "coordinator/scheduler.hpp"

namespace hpcreward {
namespace {

double unix_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::uint64_t candidate_seed(std::uint64_t run_seed, std::int64_t sequence) {
  std::uint64_t z = run_seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(sequence + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<const RewardRow *> match_logged(const std::vector<PreparedCandidate> &candidates,
                                            const std::vector<RewardRow> &logged) {
  // Each logged row accounts for one candidate with its id, in order; the rest are scored.
  std::map<std::string, std::vector<const RewardRow *>> by_id;
  for (const RewardRow &row : logged) by_id[row.candidate_id].push_back(&row);
  std::vector<const RewardRow *> matched(candidates.size(), nullptr);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto it = by_id.find(candidates[i].id);
    if (it == by_id.end() || it->second.empty()) continue;
    matched[i] = it->second.front();
    it->second.erase(it->second.begin());
  }
  return matched;
}

std::optional<double> rank_blas_gflops(const std::map<int, RankInfo> &ranks, int rank,
                                       const std::string &problem) {
  const Problem *spec = find_problem(problem);
  auto it = ranks.find(rank);
  if (!spec || it == ranks.end()) return std::nullopt;
  const double peak = spec->precision == Precision::f32   ? it->second.peak_gflops_f32
                      : spec->precision == Precision::f16 ? it->second.peak_gflops_f16
                                                          : it->second.peak_gflops_f64;
  return peak > 0 ? std::optional<double>(peak) : std::nullopt;
}

ScoringRun::ScoringRun(BenchTransport &transport, RowSink &sink, const RewardTable &rewards,
                       SqdState &sqd, ScoringContext context, ProgressCallback progress,
                       StageEventCallback on_event)
    : transport_(transport),
      sink_(sink),
      rewards_(rewards),
      sqd_(sqd),
      context_(std::move(context)),
      progress_(std::move(progress)),
      on_event_(std::move(on_event)) {
  if (context_.ranks.empty()) throw std::invalid_argument("a scoring run needs benchmark ranks");
}

std::optional<double> ScoringRun::blas_gflops(const RewardRow &row) const {
  return rank_blas_gflops(context_.rank_info, row.rank, row.problem);
}

std::string ScoringRun::device_of(const BenchResult &result) const {
  if (!result.device.empty()) return result.device;
  auto it = context_.rank_info.find(result.rank);
  return it != context_.rank_info.end() ? it->second.kind : std::string(kCpuRankKind);
}

RewardRow ScoringRun::make_row(const PreparedCandidate &candidate, const Measurement &m,
                               std::uint64_t seed, int rank, const std::string &host,
                               const std::string &device) const {
  RewardRow row;
  row.candidate_id = candidate.id;
  row.batch_id = candidate.batch_id;
  row.problem = candidate.problem;
  row.stage = candidate.stage;
  row.status = std::string(to_string(m.status));
  row.reason = m.reason;
  row.reward = rewards_.reward_for(m);
  row.gflops = m.gflops;
  row.median_s = m.median_s;
  row.min_s = m.min_s;
  row.iqr_s = m.iqr_s;
  row.cv = m.cv;
  row.reps = m.reps;
  row.max_error = m.max_error;
  row.compile_s = m.compile_s;
  row.verify_s = m.verify_s;
  row.time_s = m.time_s;
  row.source_sha256 = candidate.code.empty() ? "" : sha256_hex(candidate.code);
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
  return row;
}

const RewardRow &ScoringRun::write(RewardRow row, const PreparedCandidate &candidate,
                                   const Measurement &measurement) {
  ArchiveOutcome archive = sqd_.update_archive(row, measurement.techniques, rows_in_log_, row.time);
  row.archive = archive.change;
  row.reward += archive.bonus;
  sink_.append(row, candidate.code);
  if (archive.record) sink_.append_archive(*archive.record);
  sqd_.observe(row, blas_gflops(row));
  ++rows_in_log_;
  rows_.push_back(row);
  if (progress_) progress_(rows_.back(), rows_.size() + skipped_, total_);
  return rows_.back();
}

void ScoringRun::log_advances(const std::vector<std::string> &problems) {
  for (const StageEvent &event : sqd_.advance(problems, unix_seconds())) {
    sink_.append_event(to_record(event, rows_in_log_));
    if (on_event_) on_event_(event);
  }
}

std::vector<RewardRow> ScoringRun::score(std::vector<PreparedCandidate> candidates,
                                         const std::vector<RewardRow> &already_logged) {
  total_ = candidates.size();
  rows_in_log_ = already_logged.size();
  const std::vector<const RewardRow *> logged_row = match_logged(candidates, already_logged);

  std::set<std::string> seen_ids, problems;
  std::size_t begin = 0;
  while (begin < candidates.size()) {
    std::size_t end = begin + 1;
    while (end < candidates.size() && candidates[end].batch_id == candidates[begin].batch_id) ++end;
    score_batch(candidates, begin, end, logged_row, seen_ids);
    for (std::size_t i = begin; i < end; ++i) problems.insert(candidates[i].problem);
    begin = end;
  }
  // Advances the last batch earned are logged now, not at the next run's start.
  log_advances({problems.begin(), problems.end()});
  return rows_;
}

std::vector<RewardRow> ScoringRun::score_one_batch(std::vector<PreparedCandidate> batch,
                                                   const std::vector<RewardRow> &logged) {
  total_ += batch.size();
  std::set<std::string> seen_ids;  // ids need only be unique within a served batch
  std::vector<RewardRow> rows = score_batch(batch, 0, batch.size(), match_logged(batch, logged), seen_ids);
  sequence_base_ += static_cast<std::int64_t>(batch.size());
  return rows;
}

std::vector<RewardRow> ScoringRun::score_batch(std::vector<PreparedCandidate> &candidates,
                                               std::size_t begin, std::size_t end,
                                               const std::vector<const RewardRow *> &logged_row,
                                               std::set<std::string> &seen_ids) {
  std::vector<RewardRow> out(end - begin);
  for (std::size_t i = begin; i < end; ++i)
    if (logged_row[i]) out[i - begin] = *logged_row[i];
  // A batch a crash cut short goes on in the stage its logged rows had.
  std::map<std::string, std::string> resumed_stage;
  bool partly_logged = false, all_logged = true;
  std::vector<std::string> problems;
  for (std::size_t i = begin; i < end; ++i) {
    problems.push_back(candidates[i].problem);
    if (!logged_row[i]) {
      all_logged = false;
      continue;
    }
    partly_logged = true;
    seen_ids.insert(candidates[i].id);
    if (!candidates[i].stage_named && !logged_row[i]->stage.empty())
      resumed_stage.emplace(candidates[i].problem, logged_row[i]->stage);
  }
  if (all_logged) {
    skipped_ += end - begin;
    return out;
  }
  if (!partly_logged) log_advances(problems);

  std::vector<RankCapacity> capacities;
  for (int rank : context_.ranks) {
    auto info = context_.rank_info.find(rank);
    capacities.push_back(info == context_.rank_info.end() ? RankCapacity{rank, "cpu", 1}
                                                          : RankCapacity{rank, info->second.kind, info->second.slots});
  }
  RunCapabilities ranks_only;
  for (const RankCapacity &capacity : capacities) ++ranks_only.ranks_by_kind[capacity.kind];
  Scheduler scheduler(std::move(capacities));
  for (std::size_t i = begin; i < end; ++i) {
    if (logged_row[i]) {
      ++skipped_;
      continue;
    }
    PreparedCandidate &candidate = candidates[i];
    if (!candidate.stage_named && find_problem(candidate.problem)) {
      auto resumed = resumed_stage.find(candidate.problem);
      candidate.stage = resumed != resumed_stage.end() ? resumed->second : sqd_.current_stage(candidate.problem);
    }
    if (candidate.verdict.ok() && !seen_ids.insert(candidate.id).second)
      candidate.verdict = {Status::format_error,
                           "duplicate id \"" + candidate.id + "\": ids must be unique in a run"};
    if (candidate.verdict.ok())
      if (std::optional<std::string> reason = sqd_.unsupported_reason(candidate.stage))
        candidate.verdict = {Status::constraint_violation, *reason + "; choose another stage"};
    if (!candidate.verdict.ok()) {
      candidate.code.clear();
      const Measurement decided = failed_measurement(candidate.verdict);
      out[i - begin] = write(make_row(candidate, decided, 0, 0, context_.host, ""), candidate, decided);
      continue;
    }
    // The run refused at start (or the endpoint per request) what no rank can take.
    const Problem &problem = *find_problem(candidate.problem);
    if (!scheduler.enqueue(static_cast<std::int64_t>(i), std::string(rank_kind_for(problem.language))))
      throw std::invalid_argument("candidate " + candidate.id + ": " +
                                  problem_refusal(problem, ranks_only).value_or(problem.id));
  }

  while (!scheduler.finished()) {
    while (auto assignment = scheduler.next_assignment()) {
      const PreparedCandidate &candidate = candidates[assignment->sequence];
      const StageSpec &stage = *sqd_.config().find(candidate.stage);
      BenchTask task;
      task.sequence = assignment->sequence;
      task.candidate_id = candidate.id;
      task.problem = *find_problem(candidate.problem);
      task.stage = stage.name;
      task.compiler_flags = stage.compiler_flags;
      task.techniques_allowed = stage.techniques_allowed;
      task.techniques_required = stage.techniques_required;
      task.source = candidate.code;
      task.seed = candidate_seed(context_.seed, sequence_base_ + assignment->sequence);
      transport_.send_task(assignment->rank, task);
    }
    BenchResult result = transport_.receive_result();
    if (!scheduler.complete(result.rank, result.sequence))
      throw std::runtime_error("rank " + std::to_string(result.rank) +
                               " reported a task it was not given (sequence " +
                               std::to_string(result.sequence) + ")");
    const PreparedCandidate &candidate = candidates[result.sequence];
    out[static_cast<std::size_t>(result.sequence) - begin] =
        write(make_row(candidate, result.measurement, candidate_seed(context_.seed, sequence_base_ + result.sequence),
                       result.rank, result.host, device_of(result)),
              candidate, result.measurement);
  }
  return out;
}

}  // namespace hpcreward
