#include "coordinator/serve_loop.hpp"

#include <algorithm>
#include <iterator>
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

ServeEnd run_serve_loop(BatchRegistry &registry, const ServeHooks &hooks, const std::function<bool()> &should_stop,
                        const std::function<bool()> &should_requeue) {
  std::set<std::string> problems;  // scored since the last `drained`
  if (hooks.stages) registry.set_stages(hooks.stages());
  auto drain = [&] {
    if (problems.empty() || !hooks.drained) return;
    hooks.drained({problems.begin(), problems.end()});
    problems.clear();
  };
  auto requeue = [&] {
    close_for_requeue(registry);
    if (hooks.note) hooks.note("stopping for a requeue: no new batches; queued ones fail with \"retry\"");
    return ServeEnd::requeue;
  };
  while (true) {
    if (should_requeue && should_requeue()) {
      drain();
      return requeue();
    }
    if (!registry.is_closed() && should_stop()) {
      registry.close();
      if (hooks.note) hooks.note("stopping: no new batches; finishing those queued or in flight");
    }
    std::optional<std::vector<QueuedBatch>> group = registry.next_group(std::chrono::milliseconds(100));
    if (!group) {
      drain();
      if (registry.is_closed() && registry.idle()) break;
      continue;
    }
    if (group->size() == 1 && group->front().from_log) {  // answered before: from the log, scored never
      const QueuedBatch &batch = group->front();
      std::vector<RewardRow> logged;
      try {
        if (hooks.logged_rows) logged = hooks.logged_rows(batch.batch_id, batch.log_rows);
      } catch (const std::exception &error) {
        registry.fail_all(error.what());
        throw;
      }
      registry.complete_from_log(batch.batch_id, batch.candidates, logged);
      continue;
    }
    if (group->size() == 1 && group->front().logged_count > 0) {  // partly logged before a restart
      try {
        if (!read_logged_part(registry, hooks, group->front())) continue;
      } catch (const std::exception &error) {
        registry.fail_all(error.what());
        throw;
      }
    }
    if (group->size() > 1 && hooks.note) hooks.note(coalesced_note(*group));
    QueuedBatch batch = merge_group(*group);
    for (const PreparedCandidate &candidate : batch.candidates) problems.insert(candidate.problem);
    std::vector<RewardRow> rows;
    LogRowRange written;  // the whole log unless the hooks can say
    if (hooks.rows_in_log) written.first = hooks.rows_in_log();
    try {
      rows = hooks.score(batch);
      if (hooks.rows_in_log) written.end = hooks.rows_in_log();
    } catch (const std::exception &error) {
      registry.fail_all(error.what());
      throw;
    }
    if (hooks.cut_short && hooks.cut_short()) {
      // Its logged rows stay in the log: the retry after the restart is answered from them.
      // No advances now: the restarted run logs those due, as after a crash.
      registry.fail_running(kRequeueRetry);
      return requeue();
    }
    // The whole group was one stage's batch: its advances are logged (and published) before
    // any member is answered.
    drain();
    if (hooks.stages) registry.set_stages(hooks.stages());
    complete_group(registry, *group, std::move(rows), written);
  }
  drain();
  return ServeEnd::finished;
}

std::size_t restore_logged_batches(BatchRegistry &registry, const std::vector<RewardRow> &rows) {
  const std::size_t before = registry.restored();
  for (std::size_t i = 0; i < rows.size(); ++i) registry.restore(rows[i], i);
  return registry.restored() - before;
}

}  // namespace hpcreward
