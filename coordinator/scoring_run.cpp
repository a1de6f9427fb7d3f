#include "coordinator/scoring_run.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <stdexcept>

#include "common/number_text.hpp"
#include "common/problem.hpp"
#include "common/sha256.hpp"
#include "coordinator/measurement_key.hpp"
#include "coordinator/problem_support.hpp"
#include "coordinator/scheduler.hpp"

namespace hpcreward {
namespace {

double unix_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// How often a wait for results looks at the stop request.
constexpr std::chrono::milliseconds kStopPollInterval(250);

// Once its row is written a candidate needs neither its code nor the code's digest again
// (a retry of its batch is answered from rows, a lost rank's tasks are only ones without a
// row). A file run holds every candidate of its input until the end: without this the
// digests alone grew rank 0 by about 80 bytes a row.
void forget_code(PreparedCandidate &candidate) {
  std::string().swap(candidate.code);
  std::string().swap(candidate.code_sha256);
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
                       SqdState &sqd, ScoringContext context, ScoringObserver *observer)
    : transport_(transport),
      sink_(sink),
      rewards_(rewards),
      sqd_(sqd),
      context_(std::move(context)),
      observer_(observer),
      quarantine_(context_.ranks, context_.rank_info, RankWatch::Seconds(context_.rank_deadline_margin_s)),
      repeats_(context_.repeat_cache_entries) {
  if (context_.ranks.empty()) throw std::invalid_argument("a scoring run needs benchmark ranks");
}

bool ScoringRun::poll_stop(std::size_t held) {
  if (stopping_) return true;
  if (!context_.stop_requested || !context_.stop_requested()) return false;
  stopping_ = true;
  stop_deadline_ = clock() + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(std::max(context_.stop_grace_s, 0.0)));
  note("stopping: no new tasks; " +
       (held == 0 ? std::string("no task is out on a rank")
                  : "waiting up to " + seconds_text(context_.stop_grace_s) + " for the " + std::to_string(held) +
                        (held == 1 ? " task" : " tasks") + " the ranks hold"));
  return true;
}

std::chrono::milliseconds ScoringRun::wait_time() const {
  const Clock::time_point now = clock();
  Clock::time_point until = now + kStopPollInterval;
  if (const auto deadline = quarantine_.next_deadline()) until = std::min(until, *deadline);
  if (stopping_) until = std::min(until, stop_deadline_);
  if (until <= now) return std::chrono::milliseconds(0);
  return std::chrono::ceil<std::chrono::milliseconds>(until - now);
}

void ScoringRun::quarantine_overdue(Scheduler &scheduler, const std::vector<PreparedCandidate> &candidates) {
  for (const RankEventRecord &record : quarantine_.quarantine_overdue(scheduler, candidates, clock(), stopping_)) {
    sink_.append_rank_event(record);
    if (observer_) observer_->rank_lost(record);
  }
  if (!stopping_) quarantine_.check_stranded(scheduler, candidates);
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
  return row;
}

RewardRow ScoringRun::write(RewardRow row, const PreparedCandidate &candidate,
                                   const Measurement &measurement, double *bonus) {
  ArchiveOutcome archive = sqd_.update_archive(row, measurement.techniques, rows_in_log_, row.time);
  row.archive = archive.change;
  row.reward += archive.bonus;
  if (bonus) *bonus = archive.bonus;
  sink_.append(row, candidate.code);
  if (archive.record) sink_.append_archive(*archive.record);
  return append_row(std::move(row));
}

RewardRow ScoringRun::write_reused(const PreparedCandidate &candidate, const std::string &key,
                                          const CachedMeasurement &origin, double bonus) {
  // The measurement was offered to the archive once, with its own row: not again.
  RewardRow row = make_row(candidate, origin.measurement, origin.seed, origin.rank, origin.host, origin.device);
  row.reward += bonus;
  row.measurement_key = key;
  row.measured_as = origin.candidate_id;
  row.measured_batch = origin.batch_id;
  sink_.append(row, candidate.code);
  return append_row(std::move(row));
}

RewardRow ScoringRun::append_row(RewardRow row) {
  sqd_.observe(row, blas_gflops(row));
  ++rows_in_log_;
  ++rows_written_;
  if (observer_) observer_->row_written(row, rows_written_ + skipped_, total_);
  return row;
}

void ScoringRun::log_advances(const std::vector<std::string> &problems) {
  for (const StageEvent &event : sqd_.advance(problems, unix_seconds())) {
    sink_.append_event(to_record(event, rows_in_log_));
    if (observer_) observer_->stage_advanced(event);
  }
}

std::size_t ScoringRun::score(std::vector<PreparedCandidate> candidates,
                                         const std::vector<RewardRow> &already_logged) {
  total_ = candidates.size();
  rows_in_log_ = already_logged.size();
  repeats_.recall(already_logged);
  const std::vector<const RewardRow *> logged_row = match_logged(candidates, already_logged);

  std::set<std::string> seen_ids, problems;
  std::size_t begin = 0;
  while (begin < candidates.size()) {
    std::size_t end = begin + 1;
    while (end < candidates.size() && candidates[end].batch_id == candidates[begin].batch_id) ++end;
    score_batch(candidates, begin, end, logged_row, seen_ids);
    if (cut_short_) return rows_written_;  // a resume logs the advances due, as after a crash
    for (std::size_t i = begin; i < end; ++i) problems.insert(candidates[i].problem);
    begin = end;
  }
  // Advances the last batch earned are logged now, not at the next run's start.
  log_advances({problems.begin(), problems.end()});
  return rows_written_;
}

std::vector<RewardRow> ScoringRun::score_one_batch(std::vector<PreparedCandidate> batch,
                                                   const std::vector<RewardRow> &logged) {
  total_ += batch.size();
  // Ids need only be unique within a served batch; a coalesced group holds several requests'
  // batches (each its own batch_id), whose ids may repeat ("q0" of every /get_reward call).
  // Its members have no logged rows (BatchRegistry coalesces only those), so matching the
  // logged rows by id stays within one request.
  ids_per_batch_ = true;
  std::set<std::string> seen_ids;
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
    seen_ids.insert(seen_key(candidates[i]));
    if (!candidates[i].stage_named && !logged_row[i]->stage.empty())
      resumed_stage.emplace(candidates[i].problem, logged_row[i]->stage);
  }
  if (all_logged) {
    skipped_ += end - begin;
    return out;
  }
  if (poll_stop(0)) {  // stopping before the batch starts: none of it is scored
    cut_short_ = true;
    return out;
  }
  if (!partly_logged) log_advances(problems);

  Scheduler scheduler(quarantine_.ranks_in_service());
  repeats_.start_batch();
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
    if (candidate.verdict.ok() && !seen_ids.insert(seen_key(candidate)).second)
      candidate.verdict = {Status::format_error,
                           "duplicate id \"" + candidate.id + "\": ids must be unique in a run"};
    if (candidate.verdict.ok())
      if (std::optional<std::string> reason = sqd_.unsupported_reason(candidate.stage))
        candidate.verdict = {Status::constraint_violation, *reason + "; choose another stage"};
    if (!candidate.verdict.ok()) {
      candidate.code.clear();
      const Measurement decided = failed_measurement(candidate.verdict);
      out[i - begin] = write(make_row(candidate, decided, 0, 0, context_.host, ""), candidate, decided);
      forget_code(candidate);
      continue;
    }
    // The run refused at start (or the endpoint per request) what no rank can take.
    const Problem &problem = *find_problem(candidate.problem);
    const std::string kind(rank_kind_for(problem.language));
    const std::int64_t sequence = static_cast<std::int64_t>(i);
    candidate.code_sha256 = sha256_hex(candidate.code);  // once: the key and the row both need it
    const std::string key = measurement_key(candidate.code_sha256, candidate.problem, *sqd_.config().find(candidate.stage));
    const RepeatSharing::Route route = repeats_.route(sequence, key);
    if (route.kind == RepeatSharing::Route::reuse) {
      out[i - begin] = write_reused(candidate, key, *route.earlier, 0);
      forget_code(candidate);
      continue;
    }
    if (route.kind == RepeatSharing::Route::wait) continue;  // for the identical candidate sent
    if (!scheduler.enqueue(sequence, kind)) {
      if (quarantine_.had_kind(kind)) {  // all quarantined
        std::vector<std::string> ids;
        for (std::size_t j = i; j < end; ++j)
          if (!logged_row[j] && candidates[j].verdict.ok() && find_problem(candidates[j].problem) &&
              rank_kind_for(find_problem(candidates[j].problem)->language) == kind)
            ids.push_back(candidates[j].id);
        throw quarantine_.no_ranks_left(kind, ids);
      }
      RunCapabilities ranks_only;
      for (const RankCapacity &capacity : quarantine_.ranks_in_service()) ++ranks_only.ranks_by_kind[capacity.kind];
      throw std::invalid_argument("candidate " + candidate.id + ": " +
                                  problem_refusal(problem, ranks_only).value_or(problem.id));
    }
  }

  while (!scheduler.finished()) {
    quarantine_overdue(scheduler, candidates);
    if (poll_stop(scheduler.running())) {
      if (scheduler.running() == 0 || clock() >= stop_deadline_) {
        const std::size_t left = scheduler.running() + scheduler.queued() + repeats_.waiting();
        const bool coalesced = candidates[begin].batch_id != candidates[end - 1].batch_id;
        note("stopped: " + std::to_string(left) + (left == 1 ? " candidate" : " candidates") +
             (coalesced ? " of the coalesced batch from " : " of batch ") + candidates[begin].batch_id +
             (left == 1 ? " has" : " have") + " no row (a resume scores " +
             (left == 1 ? "it" : "them") + ")");
        cut_short_ = true;
        unanswered_at_stop_ = scheduler.running();
        break;
      }
    } else {
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
        quarantine_.sent(assignment->rank, assignment->sequence, clock());
      }
    }
    std::optional<BenchResult> result = transport_.receive_result(wait_time());
    if (!result) continue;  // deadlines and the stop request are looked at again above
    if (quarantine_.quarantined(result->rank)) {
      note(quarantine_.late_answer_note(result->rank, result->sequence));
      continue;
    }
    if (!scheduler.complete(result->rank, result->sequence))
      throw std::runtime_error("rank " + std::to_string(result->rank) +
                               " reported a task it was not given (sequence " +
                               std::to_string(result->sequence) + ")");
    quarantine_.answered(result->rank, result->sequence, clock());
    record_result(*result, candidates, begin, out);
  }
  return out;
}

void ScoringRun::record_result(const BenchResult &result, std::vector<PreparedCandidate> &candidates,
                               std::size_t begin, std::vector<RewardRow> &out) {
  PreparedCandidate &candidate = candidates[static_cast<std::size_t>(result.sequence)];
  const std::uint64_t seed = candidate_seed(context_.seed, sequence_base_ + result.sequence);
  const RepeatSharing::Answered shared = repeats_.answered(result.sequence);
  RewardRow row = make_row(candidate, result.measurement, seed, result.rank, result.host, device_of(result));
  row.measurement_key = shared.key;
  double bonus = 0;
  out[static_cast<std::size_t>(result.sequence) - begin] = write(std::move(row), candidate, result.measurement, &bonus);
  forget_code(candidate);
  CachedMeasurement origin{result.measurement, candidate.id,       candidate.batch_id, result.rank,
                           result.host,        device_of(result), seed};
  // The batch's identical candidates share this answer, whatever it is, and its bonus.
  for (std::int64_t waiting : shared.waiting) {
    PreparedCandidate &identical = candidates[static_cast<std::size_t>(waiting)];
    out[static_cast<std::size_t>(waiting) - begin] = write_reused(identical, shared.key, origin, bonus);
    forget_code(identical);
  }
  repeats_.remember(shared.key, std::move(origin));
}

}  // namespace hpcreward
