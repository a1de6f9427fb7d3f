#include "coordinator/serving/serve_loop.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>
#include <map>
#include <set>

namespace hpcreward {
namespace {

// "coalesced 16 single-candidate requests into one batch: a, b, c, ... and 13 more".
std::string coalesced_note(const std::vector<QueuedBatch> &group) {
  std::string ids;
  for (std::size_t i = 0; i < group.size() && i < 4; ++i) ids += (i ? ", " : "") + group[i].batch_id;
  if (group.size() > 4) ids += " and " + std::to_string(group.size() - 4) + " more";
  return "coalesced " + std::to_string(group.size()) + " single-candidate requests into one batch: " + ids;
}

// A partly logged batch's rows from before the restart, read back from the log into
// `batch.logged` (the ones that pair with its candidates, in its order). False when the log
// no longer holds what submit matched: the batch fails, nothing is scored twice.
bool read_logged_part(BatchRegistry &registry, const ServeHooks &hooks, QueuedBatch &batch) {
  std::vector<RewardRow> rows;
  if (hooks.logged_rows) rows = hooks.logged_rows(batch.batch_id, batch.log_rows);
  LoggedMatch match = match_logged_rows(batch.candidates, rows);
  if (match.mismatch.empty() && match.matched != batch.logged_count)
    match.mismatch = std::to_string(batch.logged_count) + " of its candidates had a row in the log at submit, " +
                     std::to_string(match.matched) + " have now";
  if (!match.mismatch.empty()) {
    registry.fail(batch.batch_id, "batch " + batch.batch_id + " is partly in the log but its log rows do not match: " +
                                      match.mismatch);
    return false;
  }
  batch.logged.clear();
  for (std::size_t row : match.row_of)
    if (row != LoggedMatch::kNoRow) batch.logged.push_back(std::move(rows[row]));
  return true;
}

}  // namespace

QueuedBatch merge_group(const std::vector<QueuedBatch> &group) {
  if (group.size() == 1) return group.front();
  QueuedBatch merged;
  merged.batch_id = group.front().batch_id;
  for (const QueuedBatch &member : group) {
    merged.candidates.insert(merged.candidates.end(), member.candidates.begin(), member.candidates.end());
    merged.logged.insert(merged.logged.end(), member.logged.begin(), member.logged.end());
  }
  return merged;
}

void complete_group(BatchRegistry &registry, const std::vector<QueuedBatch> &group, std::vector<RewardRow> rows,
                    LogRowRange written) {
  if (group.size() == 1) return registry.complete(group.front().batch_id, std::move(rows), written);
  std::size_t begin = 0;
  for (const QueuedBatch &member : group) {
    const std::size_t end = std::min(rows.size(), begin + member.candidates.size());
    registry.complete(member.batch_id,
                      {std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(begin)),
                       std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(end))},
                      written);
    begin = end;
  }
}

void close_for_requeue(BatchRegistry &registry) {
  registry.close(kRequeueRefusal);
  registry.fail_queued(kRequeueRetry);
}

namespace {

// `ServeHooks::score` as a BatchScorer: each batch is scored when it is admitted, alone.
class OneAtATime : public BatchScorer {
 public:
  explicit OneAtATime(const ServeHooks &hooks) : hooks_(hooks) {}
  std::uint64_t admit(QueuedBatch &batch) override {
    Done done{++tokens_, hooks_.score(batch), false};
    done.cut_short = hooks_.cut_short && hooks_.cut_short();
    done_.push_back(std::move(done));
    return done_.back().token;
  }
  std::vector<Done> progress(std::chrono::milliseconds) override { return std::exchange(done_, {}); }

 private:
  const ServeHooks &hooks_;
  std::uint64_t tokens_ = 0;
  std::vector<Done> done_;
};

// How long the loop waits for the scorer while it could still admit a batch: a batch that
// arrives meanwhile waits at most this for its admission.
constexpr std::chrono::milliseconds kAdmissionPoll(10);
// How long it waits for a batch when none is in flight, and for the scorer when it may admit
// no more (the stop request is looked at in between).
constexpr std::chrono::milliseconds kIdlePoll(100);

// A batch (or coalesced group) in flight: its members, its problems, where its rows begin.
struct InFlight {
  std::vector<QueuedBatch> group;
  std::vector<std::string> problems;
  LogRowRange written;
};

}  // namespace

ServeEnd run_serve_loop(BatchRegistry &registry, const ServeHooks &hooks, const std::function<bool()> &should_stop,
                        const std::function<bool()> &should_requeue) {
  OneAtATime one_at_a_time(hooks);
  BatchScorer &scorer = hooks.scorer ? *hooks.scorer : one_at_a_time;
  const std::size_t limit = hooks.scorer ? hooks.batches_in_flight : 1;
  std::map<std::uint64_t, InFlight> flights;
  const auto may_admit_more = [&] { return limit == 0 || flights.size() < limit; };
  bool requeue = false;  // stopping for a requeue: no admissions; ends once nothing is in flight
  bool requeue_announced = false;
  if (hooks.stages) registry.set_stages(hooks.stages());

  // Takes a group from the registry into flight; false when none was ready within `wait`.
  const auto admit_next = [&](std::chrono::milliseconds wait) {
    std::optional<std::vector<QueuedBatch>> group = registry.next_group(wait);
    if (!group) return false;
    if (group->size() == 1 && group->front().from_log) {  // answered before: from the log, scored never
      const QueuedBatch &batch = group->front();
      std::vector<RewardRow> logged;
      if (hooks.logged_rows) logged = hooks.logged_rows(batch.batch_id, batch.log_rows);
      registry.complete_from_log(batch.batch_id, batch.candidates, logged);
      return true;
    }
    if (group->size() == 1 && group->front().logged_count > 0)  // partly logged before a restart
      if (!read_logged_part(registry, hooks, group->front())) return true;
    if (group->size() > 1 && hooks.note) hooks.note(coalesced_note(*group));
    InFlight flight;
    if (hooks.rows_in_log) flight.written.first = hooks.rows_in_log();
    QueuedBatch batch = merge_group(*group);
    std::set<std::string> problems;
    for (const PreparedCandidate &candidate : batch.candidates) problems.insert(candidate.problem);
    flight.problems.assign(problems.begin(), problems.end());
    flight.group = std::move(*group);
    const std::uint64_t token = scorer.admit(batch);
    flights.emplace(token, std::move(flight));
    return true;
  };

  // Answers the batches the scorer has done, in that order: the rows made durable first, then
  // each batch's advances logged and published, then its answer.
  const auto answer = [&](std::vector<BatchScorer::Done> done) {
    if (done.empty()) return;
    if (hooks.flush) hooks.flush();
    for (BatchScorer::Done &batch : done) {
      auto it = flights.find(batch.token);
      InFlight flight = std::move(it->second);
      flights.erase(it);
      if (batch.cut_short) {
        // Its logged rows stay in the log: the retry after the restart is answered from them.
        // No advances now: the restarted run logs those due, as after a crash.
        for (const QueuedBatch &member : flight.group) registry.fail(member.batch_id, kRequeueRetry, true);
        requeue = true;
        continue;
      }
      if (hooks.rows_in_log) flight.written.end = hooks.rows_in_log();
      if (hooks.drained) hooks.drained(flight.problems);
      if (hooks.stages) registry.set_stages(hooks.stages());
      complete_group(registry, flight.group, std::move(batch.rows), flight.written);
    }
  };

  while (true) {
    if (!requeue && should_requeue && should_requeue()) requeue = true;
    if (requeue && !requeue_announced) {
      close_for_requeue(registry);
      if (hooks.note) hooks.note("stopping for a requeue: no new batches; queued ones fail with \"retry\"");
      requeue_announced = true;
    }
    if (!requeue && !registry.is_closed() && should_stop()) {
      registry.close();
      if (hooks.note) hooks.note("stopping: no new batches; finishing those queued or in flight");
    }
    try {
      // Every batch ready is admitted (up to the limit); with none in flight, it waits for one.
      if (!requeue)
        while (may_admit_more() && admit_next(flights.empty() ? kIdlePoll : std::chrono::milliseconds(0))) {
        }
      if (flights.empty()) {
        if (requeue) return ServeEnd::requeue;
        if (registry.is_closed() && registry.idle()) break;
        continue;
      }
      answer(scorer.progress(!requeue && may_admit_more() ? kAdmissionPoll : kIdlePoll));
    } catch (const std::exception &error) {
      registry.fail_all(error.what());
      throw;
    }
  }
  return ServeEnd::finished;
}

std::size_t restore_logged_batches(BatchRegistry &registry, const std::vector<RewardRow> &rows) {
  const std::size_t before = registry.restored();
  for (std::size_t i = 0; i < rows.size(); ++i) registry.restore(rows[i], i);
  return registry.restored() - before;
}

}  // namespace hpcreward
