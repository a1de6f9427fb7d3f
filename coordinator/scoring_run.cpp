#include "coordinator/scoring_run.hpp"

#include <chrono>
#include <set>
#include <stdexcept>

#include "common/problem.hpp"
#include "common/sha256.hpp"
#include "coordinator/scheduler.hpp"
#include "stages/stage.hpp"

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

ScoringRun::ScoringRun(BenchTransport &transport, RowSink &sink, const RewardTable &rewards,
                       ScoringContext context, ProgressCallback progress)
    : transport_(transport),
      sink_(sink),
      rewards_(rewards),
      context_(std::move(context)),
      progress_(std::move(progress)) {
  if (context_.ranks.empty()) throw std::invalid_argument("a scoring run needs benchmark ranks");
}

RewardRow ScoringRun::make_row(const PreparedCandidate &candidate, const Measurement &m,
                               std::uint64_t seed, int rank, const std::string &host) const {
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
  row.time = unix_seconds();
  row.seed = seed;
  return row;
}

void ScoringRun::write(const RewardRow &row, const std::string &source) {
  sink_.append(row, source);
  rows_.push_back(row);
  if (progress_) progress_(row, rows_.size(), total_);
}

std::vector<RewardRow> ScoringRun::score(std::vector<PreparedCandidate> candidates) {
  total_ = candidates.size();
  Scheduler scheduler(context_.ranks);
  std::set<std::string> seen_ids;

  for (std::size_t i = 0; i < candidates.size(); ++i) {
    PreparedCandidate &candidate = candidates[i];
    if (candidate.verdict.ok() && !seen_ids.insert(candidate.id).second) {
      candidate.verdict = {Status::format_error,
                           "duplicate id \"" + candidate.id + "\": ids must be unique in a run"};
      candidate.code.clear();
    }
    if (!candidate.verdict.ok()) {
      Measurement decided;
      decided.status = candidate.verdict.status;
      decided.reason = candidate.verdict.reason;
      write(make_row(candidate, decided, 0, 0, context_.host), candidate.code);
      continue;
    }
    scheduler.enqueue(static_cast<std::int64_t>(i));
  }

  while (!scheduler.finished()) {
    while (auto assignment = scheduler.next_assignment()) {
      const PreparedCandidate &candidate = candidates[assignment->sequence];
      const Problem *problem = find_problem(candidate.problem);
      const Stage *stage = find_stage(candidate.stage);
      BenchTask task;
      task.sequence = assignment->sequence;
      task.candidate_id = candidate.id;
      task.problem = *problem;
      task.stage = stage->name;
      task.compiler_flags = stage->compiler_flags;
      task.techniques_allowed = stage->techniques_allowed;
      task.techniques_required = stage->techniques_required;
      task.source = candidate.code;
      task.seed = candidate_seed(context_.seed, assignment->sequence);
      transport_.send_task(assignment->rank, task);
    }
    BenchResult result = transport_.receive_result();
    if (!scheduler.complete(result.rank, result.sequence))
      throw std::runtime_error("rank " + std::to_string(result.rank) +
                               " reported a task it was not given (sequence " +
                               std::to_string(result.sequence) + ")");
    const PreparedCandidate &candidate = candidates[result.sequence];
    write(make_row(candidate, result.measurement, candidate_seed(context_.seed, result.sequence),
                   result.rank, result.host),
          candidate.code);
  }
  return rows_;
}

}  // namespace hpcreward
