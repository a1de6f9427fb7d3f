#include "coordinator/scoring_run.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "common/problem_catalog.hpp"
#include "common/sha256.hpp"
#include "coordinator/measurement_key.hpp"
#include "coordinator/problem_support.hpp"

namespace hpcreward {
namespace {

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

ScoringRun::ScoringRun(BenchTransport &transport, RowSink &sink, const RewardTable &rewards, SqdState &sqd,
                       ScoringContext context, ScoringObserver *observer)
    : transport_(transport),
      sink_(sink),
      sqd_(sqd),
      context_(std::move(context)),
      observer_(observer),
      rows_(sink, rewards, sqd, context_.rank_info, observer),
      quarantine_(context_.ranks, context_.rank_info, RankWatch::Seconds(context_.rank_deadline_margin_s)),
      repeats_(context_.repeat_cache_entries),
      grace_(context_.stop_requested, context_.stop_grace_s) {
  if (context_.ranks.empty()) throw std::invalid_argument("a scoring run needs benchmark ranks");
}

std::size_t ScoringRun::score(std::vector<PreparedCandidate> candidates, const std::vector<RewardRow> &already_logged) {
  rows_.expect(candidates.size());
  rows_.continue_log(already_logged.size());
  repeats_.recall(already_logged);
  const std::vector<const RewardRow *> logged_row = match_logged(candidates, already_logged);

  std::set<std::string> seen_ids, problems;
  std::size_t begin = 0;
  while (begin < candidates.size()) {
    std::size_t end = begin + 1;
    while (end < candidates.size() && candidates[end].batch_id == candidates[begin].batch_id) ++end;
    score_batch(candidates, begin, end, logged_row, seen_ids);
    if (cut_short_) return rows_.rows_written();  // a resume logs the advances due, as after a crash
    for (std::size_t i = begin; i < end; ++i) problems.insert(candidates[i].problem);
    begin = end;
  }
  // Advances the last batch earned are logged now, not at the next run's start.
  rows_.log_advances({problems.begin(), problems.end()});
  return rows_.rows_written();
}

std::vector<RewardRow> ScoringRun::score_one_batch(std::vector<PreparedCandidate> batch,
                                                   const std::vector<RewardRow> &logged) {
  rows_.expect(batch.size());
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

std::vector<RewardRow> ScoringRun::score_batch(std::vector<PreparedCandidate> &candidates, std::size_t begin,
                                               std::size_t end, const std::vector<const RewardRow *> &logged_row,
                                               std::set<std::string> &seen_ids) {
  Batch batch{candidates, begin, end, logged_row, std::vector<RewardRow>(end - begin)};
  const LoggedPart logged = take_logged_rows(batch, seen_ids);
  if (logged.all) {
    rows_.skip(end - begin);
    return std::move(batch.rows);
  }
  if (poll_stop(0)) {  // stopping before the batch starts: none of it is scored
    cut_short_ = true;
    return std::move(batch.rows);
  }
  if (!logged.any) {
    std::vector<std::string> problems;
    for (std::size_t i = begin; i < end; ++i) problems.push_back(candidates[i].problem);
    rows_.log_advances(problems);
  }
  Scheduler scheduler(quarantine_.ranks_in_service());
  repeats_.start_batch();
  for (std::size_t i = begin; i < end; ++i) {
    if (logged_row[i]) {
      rows_.skip(1);
      continue;
    }
    settle(candidates[i], logged, seen_ids);
    if (candidates[i].verdict.ok())
      queue_or_share(batch, i, scheduler);
    else
      write_decided(batch, i);
  }
  collect_answers(batch, scheduler);
  return std::move(batch.rows);
}

LoggedPart ScoringRun::take_logged_rows(Batch &batch, std::set<std::string> &seen_ids) {
  for (std::size_t i = batch.begin; i < batch.end; ++i)
    if (const RewardRow *row = batch.logged_row[i]) {
      batch.row_of(i) = *row;
      seen_ids.insert(seen_key(batch.candidates[i]));
    }
  return logged_part(batch.candidates, batch.begin, batch.end, batch.logged_row);
}

void ScoringRun::settle(PreparedCandidate &candidate, const LoggedPart &logged, std::set<std::string> &seen_ids) {
  if (!candidate.stage_named && find_problem(candidate.problem)) {
    auto resumed = logged.stages.find(candidate.problem);
    candidate.stage = resumed != logged.stages.end() ? resumed->second : sqd_.current_stage(candidate.problem);
  }
  if (candidate.verdict.ok() && !seen_ids.insert(seen_key(candidate)).second)
    candidate.verdict = {Status::format_error, "duplicate id \"" + candidate.id + "\": ids must be unique in a run"};
  if (candidate.verdict.ok())
    if (std::optional<std::string> reason = sqd_.unsupported_reason(candidate.stage))
      candidate.verdict = {Status::constraint_violation, *reason + "; choose another stage"};
}

void ScoringRun::write_decided(Batch &batch, std::size_t i) {
  PreparedCandidate &candidate = batch.candidates[i];
  candidate.code.clear();
  const Measurement decided = failed_measurement(candidate.verdict);
  batch.row_of(i) = rows_.write(rows_.decided_row(candidate, decided, context_.host), candidate, decided);
  forget_code(candidate);
}

void ScoringRun::queue_or_share(Batch &batch, std::size_t i, Scheduler &scheduler) {
  PreparedCandidate &candidate = batch.candidates[i];
  // The run refused at start (or the endpoint per request) what no rank can take.
  const Problem &problem = *find_problem(candidate.problem);
  const std::string kind(rank_kind_for(problem.language));
  const auto sequence = static_cast<std::int64_t>(i);
  candidate.code_sha256 = sha256_hex(candidate.code);  // once: the key and the row both need it
  const std::string key = measurement_key(candidate.code_sha256, candidate.problem, *sqd_.config().find(candidate.stage));
  const RepeatSharing::Route route = repeats_.route(sequence, key);
  if (route.kind == RepeatSharing::Route::reuse) {
    batch.row_of(i) = rows_.write_reused(candidate, key, *route.earlier, 0);
    forget_code(candidate);
    return;
  }
  if (route.kind == RepeatSharing::Route::wait) return;  // for the identical candidate sent
  if (scheduler.enqueue(sequence, kind)) return;
  if (quarantine_.had_kind(kind)) {  // all quarantined
    std::vector<std::string> ids;
    for (std::size_t j = i; j < batch.end; ++j) {
      const PreparedCandidate &other = batch.candidates[j];
      if (!batch.logged_row[j] && other.verdict.ok() && find_problem(other.problem) &&
          rank_kind_for(find_problem(other.problem)->language) == kind)
        ids.push_back(other.id);
    }
    throw quarantine_.no_ranks_left(kind, ids);
  }
  RunCapabilities ranks_only;
  for (const RankCapacity &capacity : quarantine_.ranks_in_service()) ++ranks_only.ranks_by_kind[capacity.kind];
  throw std::invalid_argument("candidate " + candidate.id + ": " +
                              problem_refusal(problem, ranks_only).value_or(problem.id));
}

void ScoringRun::collect_answers(Batch &batch, Scheduler &scheduler) {
  while (!scheduler.finished()) {
    quarantine_overdue(scheduler, batch);
    if (!poll_stop(scheduler.running())) {
      send_tasks(batch, scheduler);
    } else if (scheduler.running() == 0 || grace_.over(clock())) {
      give_up_batch(batch, scheduler);
      return;
    }
    // Nothing: deadlines and the stop request are looked at again.
    if (std::optional<BenchResult> result = transport_.receive_result(wait_time())) take_answer(*result, batch, scheduler);
  }
}

void ScoringRun::send_tasks(const Batch &batch, Scheduler &scheduler) {
  while (auto assignment = scheduler.next_assignment()) {
    const PreparedCandidate &candidate = batch.candidates[static_cast<std::size_t>(assignment->sequence)];
    const StageSpec &stage = *sqd_.config().find(candidate.stage);
    BenchTask task;
    task.sequence = assignment->sequence;
    task.candidate_id = candidate.id;
    task.problem = *find_problem(candidate.problem);
    task.stage = stage.name;
    task.compiler_flags = stage.compiler_flags;
    task.techniques_allowed = stage.techniques_allowed;
    task.techniques_required = stage.techniques_required;
    task.libraries = stage.libraries;
    task.source = candidate.code;
    task.seed = candidate_seed(context_.seed, sequence_base_ + assignment->sequence);
    transport_.send_task(assignment->rank, task);
    quarantine_.sent(assignment->rank, assignment->sequence, clock());
  }
}

void ScoringRun::take_answer(const BenchResult &result, Batch &batch, Scheduler &scheduler) {
  if (quarantine_.quarantined(result.rank)) {
    note(quarantine_.late_answer_note(result.rank, result.sequence));
    return;
  }
  if (!scheduler.complete(result.rank, result.sequence))
    throw std::runtime_error("rank " + std::to_string(result.rank) + " reported a task it was not given (sequence " +
                             std::to_string(result.sequence) + ")");
  quarantine_.answered(result.rank, result.sequence, clock());
  record_result(result, batch);
}

void ScoringRun::record_result(const BenchResult &result, Batch &batch) {
  const auto index = static_cast<std::size_t>(result.sequence);
  PreparedCandidate &candidate = batch.candidates[index];
  const RepeatSharing::Answered shared = repeats_.answered(result.sequence);
  RewardRow row = rows_.measured_row(candidate, result, candidate_seed(context_.seed, sequence_base_ + result.sequence));
  row.measurement_key = shared.key;
  double bonus = 0;
  const RewardRow &written = batch.row_of(index) = rows_.write(std::move(row), candidate, result.measurement, &bonus);
  forget_code(candidate);
  CachedMeasurement origin{result.measurement, written.candidate_id, written.batch_id, written.rank,
                           written.host,       written.device,       written.seed};
  // The batch's identical candidates share this answer, whatever it is, and its bonus.
  for (std::int64_t waiting : shared.waiting) {
    PreparedCandidate &identical = batch.candidates[static_cast<std::size_t>(waiting)];
    batch.row_of(static_cast<std::size_t>(waiting)) = rows_.write_reused(identical, shared.key, origin, bonus);
    forget_code(identical);
  }
  repeats_.remember(shared.key, std::move(origin));
}

void ScoringRun::give_up_batch(const Batch &batch, const Scheduler &scheduler) {
  const std::size_t left = scheduler.running() + scheduler.queued() + repeats_.waiting();
  const std::string &first_batch = batch.candidates[batch.begin].batch_id;
  const bool coalesced = first_batch != batch.candidates[batch.end - 1].batch_id;
  note("stopped: " + std::to_string(left) + (left == 1 ? " candidate" : " candidates") +
       (coalesced ? " of the coalesced batch from " : " of batch ") + first_batch + (left == 1 ? " has" : " have") +
       " no row (a resume scores " + (left == 1 ? "it" : "them") + ")");
  cut_short_ = true;
  unanswered_at_stop_ = scheduler.running();
}

void ScoringRun::quarantine_overdue(Scheduler &scheduler, const Batch &batch) {
  for (const RankEventRecord &record :
       quarantine_.quarantine_overdue(scheduler, batch.candidates, clock(), grace_.stopping())) {
    sink_.append_rank_event(record);
    if (observer_) observer_->rank_lost(record);
  }
  if (!grace_.stopping()) quarantine_.check_stranded(scheduler, batch.candidates);
}

bool ScoringRun::poll_stop(std::size_t held) {
  if (std::optional<std::string> line = grace_.check(clock(), held)) note(*line);
  return grace_.stopping();
}

std::chrono::milliseconds ScoringRun::wait_time() const {
  const Clock::time_point now = clock();
  Clock::time_point until = now + kStopPollInterval;
  if (const auto deadline = quarantine_.next_deadline()) until = std::min(until, *deadline);
  if (const auto grace_ends = grace_.deadline()) until = std::min(until, *grace_ends);
  if (until <= now) return std::chrono::milliseconds(0);
  return std::chrono::ceil<std::chrono::milliseconds>(until - now);
}

}  // namespace hpcreward
