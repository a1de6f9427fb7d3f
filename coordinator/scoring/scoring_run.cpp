#include "coordinator/scoring/scoring_run.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "common/problem_catalog.hpp"
#include "common/sha256.hpp"
#include "coordinator/scoring/measurement_key.hpp"
#include "coordinator/ranks/problem_support.hpp"

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
      scheduler_(quarantine_.ranks_in_service()),
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
    // One batch at a time: each runs in the stage the ones before it earned.
    Flight &flight = add_flight();
    flight.candidates = &candidates;
    flight.begin = begin;
    flight.end = end;
    flight.base = static_cast<std::int64_t>(begin);
    flight.logged_row = &logged_row;  // by the file's index
    flight.seen = &seen_ids;
    start(flight);
    while (!done_.empty() || !flights_.empty()) progress(kStopPollInterval);
    if (cut_short_) return rows_.rows_written();  // a resume logs the advances due, as after a crash
    for (std::size_t i = begin; i < end; ++i) problems.insert(candidates[i].problem);
    begin = end;
  }
  // Advances the last batch earned are logged now, not at the next run's start.
  rows_.log_advances({problems.begin(), problems.end()});
  return rows_.rows_written();
}

ScoringRun::BatchToken ScoringRun::admit(std::vector<PreparedCandidate> batch, const std::vector<RewardRow> &logged) {
  // Ids need only be unique within a served batch; a coalesced group holds several requests'
  // batches (each its own batch_id), whose ids may repeat ("q0" of every /get_reward call).
  // Its members have no logged rows (BatchRegistry coalesces only those), so matching the
  // logged rows by id stays within one request.
  ids_per_batch_ = true;
  rows_.expect(batch.size());
  Flight &flight = add_flight();
  flight.owned = std::move(batch);
  flight.candidates = &flight.owned;
  flight.end = flight.owned.size();
  flight.base = sequence_base_;
  sequence_base_ += static_cast<std::int64_t>(flight.owned.size());
  flight.owned_logged_row = match_logged(flight.owned, logged);
  flight.logged_row = &flight.owned_logged_row;
  flight.seen = &flight.own_seen;
  const BatchToken token = flight.token;
  start(flight);
  return token;
}

std::vector<RewardRow> ScoringRun::score_one_batch(std::vector<PreparedCandidate> batch,
                                                   const std::vector<RewardRow> &logged) {
  const BatchToken token = admit(std::move(batch), logged);
  for (;;)
    for (DoneBatch &done : progress(kStopPollInterval))
      if (done.token == token) return std::move(done.rows);
}

ScoringRun::Flight &ScoringRun::add_flight() {
  const BatchToken token = next_token_++;
  Flight &flight = flights_[token];
  flight.token = token;
  return flight;
}

void ScoringRun::start(Flight &flight) {
  if (flight.size() > 0) flight_at_.emplace(flight.base, flight.token);
  flight.rows.resize(flight.size());
  const LoggedPart logged = take_logged_rows(flight);
  if (logged.all) {
    rows_.skip(flight.size());
    return finish_if_done(flight);
  }
  if (poll_stop(scheduler_.running())) {  // stopping before the batch starts: none of it is scored
    cut_short_ = true;
    return end_flight(flight, /*cut_short=*/true);
  }
  if (!logged.any) {
    std::vector<std::string> problems;
    for (std::size_t i = flight.begin; i < flight.end; ++i) problems.push_back(flight.candidate(i).problem);
    rows_.log_advances(problems);
  }
  for (std::size_t i = flight.begin; i < flight.end; ++i) {
    if (flight.logged(i)) {
      rows_.skip(1);
      continue;
    }
    PreparedCandidate &candidate = flight.candidate(i);
    settle(flight, candidate, logged);
    if (candidate.verdict.ok())
      queue_or_share(flight, i);
    else
      write_decided(flight, i);
  }
  finish_if_done(flight);
}

LoggedPart ScoringRun::take_logged_rows(Flight &flight) {
  for (std::size_t i = flight.begin; i < flight.end; ++i)
    if (const RewardRow *row = flight.logged(i)) {
      flight.rows[i - flight.begin] = *row;
      ++flight.rows_done;
      flight.seen->insert(seen_key(flight.candidate(i)));
    }
  return logged_part(*flight.candidates, flight.begin, flight.end, *flight.logged_row);
}

void ScoringRun::settle(Flight &flight, PreparedCandidate &candidate, const LoggedPart &logged) {
  if (!candidate.stage_named && find_problem(candidate.problem)) {
    auto resumed = logged.stages.find(candidate.problem);
    candidate.stage = resumed != logged.stages.end() ? resumed->second : sqd_.current_stage(candidate.problem);
  }
  if (candidate.verdict.ok() && !flight.seen->insert(seen_key(candidate)).second)
    candidate.verdict = {Status::format_error, "duplicate id \"" + candidate.id + "\": ids must be unique in a run"};
  if (candidate.verdict.ok())
    if (std::optional<std::string> reason = sqd_.unsupported_reason(candidate.stage))
      candidate.verdict = {Status::constraint_violation, *reason + "; choose another stage"};
}

void ScoringRun::set_row(Flight &flight, std::size_t i, RewardRow row) {
  flight.rows[i - flight.begin] = std::move(row);
  ++flight.rows_done;
}

void ScoringRun::finish_if_done(Flight &flight) {
  if (flight.rows_done == flight.size()) end_flight(flight, /*cut_short=*/false);
}

void ScoringRun::end_flight(Flight &flight, bool cut_short) {
  repeats_.end_batch(flight.token);
  if (flight.size() > 0) flight_at_.erase(flight.base);
  done_.push_back({flight.token, std::move(flight.rows), cut_short});
  flights_.erase(flight.token);
}

void ScoringRun::write_decided(Flight &flight, std::size_t i) {
  PreparedCandidate &candidate = flight.candidate(i);
  candidate.code.clear();
  const Measurement decided = failed_measurement(candidate.verdict);
  set_row(flight, i, rows_.write(rows_.decided_row(candidate, decided, context_.host), candidate, decided));
  forget_code(candidate);
}

void ScoringRun::queue_or_share(Flight &flight, std::size_t i) {
  PreparedCandidate &candidate = flight.candidate(i);
  // The run refused at start (or the endpoint per request) what no rank can take.
  const Problem &problem = *find_problem(candidate.problem);
  const std::string kind(rank_kind_for(problem.language));
  const std::int64_t sequence = flight.sequence_of(i);
  candidate.code_sha256 = sha256_hex(candidate.code);  // once: the key and the row both need it
  const std::string key = measurement_key(candidate.code_sha256, candidate.problem, *sqd_.config().find(candidate.stage));
  const RepeatSharing::Route route = repeats_.route(sequence, key, flight.token);
  if (route.kind == RepeatSharing::Route::reuse) {
    set_row(flight, i, rows_.write_reused(candidate, key, *route.earlier, 0));
    forget_code(candidate);
    return;
  }
  if (route.kind == RepeatSharing::Route::wait) return;  // for the identical candidate sent
  if (scheduler_.enqueue(sequence, kind)) return;
  if (quarantine_.had_kind(kind)) {  // all quarantined
    std::vector<std::string> ids;
    for (std::size_t j = i; j < flight.end; ++j) {
      const PreparedCandidate &other = flight.candidate(j);
      if (!flight.logged(j) && other.verdict.ok() && find_problem(other.problem) &&
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

std::vector<ScoringRun::DoneBatch> ScoringRun::progress(std::chrono::milliseconds wait) {
  if (!flights_.empty()) {
    quarantine_overdue();
    const bool stopping = poll_stop(scheduler_.running());
    if (stopping && (scheduler_.running() == 0 || grace_.over(clock()))) {
      give_up_flights();
    } else {
      if (!stopping) send_tasks();
      if (std::optional<BenchResult> result = transport_.receive_result(std::min(wait, wait_time())))
        take_answer(*result);
    }
  }
  std::vector<DoneBatch> done(std::make_move_iterator(done_.begin()), std::make_move_iterator(done_.end()));
  done_.clear();
  return done;
}

std::pair<ScoringRun::Flight *, std::size_t> ScoringRun::locate(std::int64_t sequence) {
  auto at = flight_at_.upper_bound(sequence);
  if (at == flight_at_.begin()) return {nullptr, 0};
  Flight &flight = flights_.at(std::prev(at)->second);
  if (sequence >= flight.base + static_cast<std::int64_t>(flight.size())) return {nullptr, 0};
  return {&flight, flight.index_of(sequence)};
}

std::string ScoringRun::candidate_id_of(std::int64_t sequence) {
  auto [flight, i] = locate(sequence);
  return flight ? flight->candidate(i).id : "task " + std::to_string(sequence);
}

void ScoringRun::send_tasks() {
  while (auto assignment = scheduler_.next_assignment()) {
    auto [flight, i] = locate(assignment->sequence);
    const PreparedCandidate &candidate = flight->candidate(i);
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
    task.seed = candidate_seed(context_.seed, assignment->sequence);
    transport_.send_task(assignment->rank, task);
    quarantine_.sent(assignment->rank, assignment->sequence, clock());
  }
}

void ScoringRun::take_answer(const BenchResult &result) {
  if (quarantine_.quarantined(result.rank)) {
    note(quarantine_.late_answer_note(result.rank, result.sequence));
    return;
  }
  if (!scheduler_.complete(result.rank, result.sequence))
    throw std::runtime_error("rank " + std::to_string(result.rank) + " reported a task it was not given (sequence " +
                             std::to_string(result.sequence) + ")");
  quarantine_.answered(result.rank, result.sequence, clock());
  record_result(result);
}

void ScoringRun::record_result(const BenchResult &result) {
  auto [flight, index] = locate(result.sequence);
  PreparedCandidate &candidate = flight->candidate(index);
  const RepeatSharing::Answered shared = repeats_.answered(result.sequence);
  RewardRow row = rows_.measured_row(candidate, result, candidate_seed(context_.seed, result.sequence));
  row.measurement_key = shared.key;
  double bonus = 0;
  RewardRow written = rows_.write(std::move(row), candidate, result.measurement, &bonus);
  forget_code(candidate);
  CachedMeasurement origin{result.measurement, written.candidate_id, written.batch_id, written.rank,
                           written.host,       written.device,       written.seed,
                           rows_.feedback_on(candidate, result.measurement)};
  set_row(*flight, index, std::move(written));
  // The batch's identical candidates share this answer, whatever it is, and its bonus.
  for (std::int64_t waiting : shared.waiting) {
    const std::size_t other = flight->index_of(waiting);
    PreparedCandidate &identical = flight->candidate(other);
    set_row(*flight, other, rows_.write_reused(identical, shared.key, origin, bonus));
    forget_code(identical);
  }
  repeats_.remember(shared.key, std::move(origin));
  finish_if_done(*flight);
}

void ScoringRun::give_up_flights() {
  unanswered_at_stop_ = scheduler_.running();
  while (!flights_.empty()) {
    Flight &flight = flights_.begin()->second;
    const std::size_t left = flight.size() - flight.rows_done;
    const std::string &first_batch = flight.candidate(flight.begin).batch_id;
    const bool coalesced = first_batch != flight.candidate(flight.end - 1).batch_id;
    note("stopped: " + std::to_string(left) + (left == 1 ? " candidate" : " candidates") +
         (coalesced ? " of the coalesced batch from " : " of batch ") + first_batch + (left == 1 ? " has" : " have") +
         " no row (a resume scores " + (left == 1 ? "it" : "them") + ")");
    cut_short_ = true;
    end_flight(flight, /*cut_short=*/true);
  }
}

void ScoringRun::quarantine_overdue() {
  const RankQuarantine::CandidateIdOf id_of = [this](std::int64_t sequence) { return candidate_id_of(sequence); };
  for (const RankEventRecord &record : quarantine_.quarantine_overdue(scheduler_, id_of, clock(), grace_.stopping())) {
    sink_.append_rank_event(record);
    if (observer_) observer_->rank_lost(record);
  }
  if (!grace_.stopping()) quarantine_.check_stranded(scheduler_, id_of);
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
