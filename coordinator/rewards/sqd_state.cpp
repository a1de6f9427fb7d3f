#include "coordinator/rewards/sqd_state.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "common/problem_catalog.hpp"
#include "common/yardsticks.hpp"
#include "techniques/summary_text.hpp"  // the niche key, and the columns summary_from_row reads

namespace hpcreward {

StageObservation observation_from_row(const RewardRow &row, std::optional<double> blas_gflops) {
  std::optional<Status> status = parse_status(row.status);
  if (!status)
    throw std::invalid_argument("reward row " + row.candidate_id + ": unknown status \"" + row.status + "\"");
  const double yardstick = Yardsticks{row.openblas_gflops, row.cublas_gflops, row.cublaslt_gflops}.best();
  return {row.problem, row.stage,    *status,     row.reward,
          row.gflops,  row.batch_id, blas_gflops, yardstick > 0 ? std::optional(yardstick) : std::nullopt};
}
namespace {

StageEvent from_record(const StageEventRecord &record) {
  return {record.problem, record.from, record.to, record.rule, record.detail, record.time};
}

}  // namespace

TechniqueSummary summary_from_row(const RewardRow &row) {
  return summary_from_text(row.techniques, row.loop_order, row.tile_sizes);
}

StageEventRecord to_record(const StageEvent &event, std::uint64_t rows_before) {
  return {event.problem, event.from, event.to, event.rule, event.detail, event.time, rows_before};
}

SqdState::SqdState(const LadderConfig &config, const RankSupport &support)
    : config_(&config),
      support_(support),
      unsupported_(unsupported_stages(config, support)),
      archive_(config.shaping) {}

ProblemProgress &SqdState::progress(const std::string &problem) {
  auto it = progress_.find(problem);
  if (it == progress_.end())
    it = progress_.emplace(problem, ProblemProgress(*config_, problem, unsupported_for(problem))).first;
  return it->second;
}

std::vector<UnsupportedStage> SqdState::unsupported_for(const std::string &problem) const {
  std::vector<UnsupportedStage> stages = unsupported_;
  const Problem *spec = find_problem(problem);
  if (!spec) return stages;
  for (const std::string &name : config_->ladder_for(spec->language)) {
    const bool listed = std::any_of(stages.begin(), stages.end(), [&](const UnsupportedStage &s) { return s.stage == name; });
    if (!listed)
      if (std::optional<std::string> reason = unsupported_for_problem(*config_->find(name), *spec))
        stages.push_back({name, *reason, spec->language});
  }
  return stages;
}

const std::string &SqdState::current_stage(const std::string &problem) {
  return progress(problem).current_stage();
}

std::optional<std::string> SqdState::unsupported_reason(const std::string &stage) const {
  const StageSpec *spec = config_->find(stage);
  if (!spec) return std::nullopt;
  return hpcreward::unsupported_reason(*spec, support_);
}

ArchiveOutcome SqdState::update_archive(const RewardRow &row, const TechniqueSummary &techniques,
                                        std::uint64_t row_index, double now) {
  ArchiveOutcome outcome;
  if (row.status != "ok" || !techniques.detected) return outcome;
  const std::string key = descriptor_key(techniques);
  const ArchiveUpdate update =
      archive_.update({row.problem, row.stage, key, {row.candidate_id, row.gflops, row.source_sha256, row.cv}});
  if (update.change == ArchiveChange::no_change) return outcome;
  outcome.change = std::string(to_string(update.change));
  outcome.bonus = update.bonus;
  ArchiveRecord record;
  record.problem = row.problem;
  record.stage = row.stage;
  record.niche = key;
  record.change = outcome.change;
  record.candidate_id = row.candidate_id;
  record.batch_id = row.batch_id;
  record.gflops = row.gflops;
  record.source_sha256 = row.source_sha256;
  if (update.previous) {
    record.previous_candidate_id = update.previous->candidate_id;
    record.previous_gflops = update.previous->gflops;
  }
  record.time = now;
  record.row_index = row_index;
  outcome.record = std::move(record);
  return outcome;
}

void SqdState::observe(const RewardRow &row, std::optional<double> blas_gflops) {
  if (!find_problem(row.problem) || row.stage.empty()) return;
  progress(row.problem).observe(observation_from_row(row, blas_gflops));
}

std::vector<StageEvent> SqdState::advance(const std::vector<std::string> &problems, double now) {
  std::vector<StageEvent> events;
  std::set<std::string> done;
  for (const std::string &problem : problems) {
    if (!done.insert(problem).second || !find_problem(problem)) continue;
    ProblemProgress &state = progress(problem);
    while (std::optional<StageEvent> event = state.maybe_advance(now)) events.push_back(*event);
  }
  return events;
}

std::map<std::string, std::string> SqdState::stages() const {
  std::map<std::string, std::string> out;
  for (const auto &[problem, state] : progress_) out[problem] = state.current_stage();
  return out;
}

SqdState SqdState::rebuild(const LadderConfig &config, const RankSupport &support,
                           const std::vector<RewardRow> &rows,
                           const std::vector<StageEventRecord> &events,
                           const std::vector<ArchiveRecord> &archive_records,
                           const std::function<std::optional<double>(const RewardRow &)> &blas_gflops,
                           std::vector<ArchiveRecord> &missing_archive) {
  SqdState state(config, support);

  // Stage progress: rows and events in log order (an event precedes the row it preceded).
  ProgressHistory history;
  std::set<std::string> problems;
  std::size_t next_event = 0;
  auto events_before = [&](std::uint64_t row_index) {
    while (next_event < events.size() && events[next_event].rows_before <= row_index) {
      history.emplace_back(from_record(events[next_event]));
      problems.insert(events[next_event].problem);
      ++next_event;
    }
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    events_before(i);
    const RewardRow &row = rows[i];
    if (!find_problem(row.problem) || row.stage.empty()) continue;
    history.emplace_back(observation_from_row(row, blas_gflops(row)));
    problems.insert(row.problem);
  }
  events_before(rows.size());
  for (const std::string &problem : problems)
    state.progress_.emplace(problem,
                            ProblemProgress::rebuild(config, problem, state.unsupported_for(problem), history));

  // Archive: replayed from the rows; records past the last logged one were lost in a crash.
  std::optional<std::uint64_t> last_logged;
  for (const ArchiveRecord &record : archive_records)
    last_logged = std::max(last_logged.value_or(0), record.row_index);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].measured_as.empty()) continue;  // a reused measurement: its own row offered it once
    ArchiveOutcome outcome = state.update_archive(rows[i], summary_from_row(rows[i]), i, rows[i].time);
    if (outcome.record && (!last_logged || i > *last_logged)) missing_archive.push_back(*outcome.record);
  }
  return state;
}

}  // namespace hpcreward
