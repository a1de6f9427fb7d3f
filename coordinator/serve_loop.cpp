#include "coordinator/serve_loop.hpp"

#include <map>
#include <set>

namespace hpcreward {

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
    std::optional<QueuedBatch> batch = registry.next(std::chrono::milliseconds(100));
    if (!batch) {
      drain();
      if (registry.is_closed() && registry.idle()) break;
      continue;
    }
    for (const PreparedCandidate &candidate : batch->candidates) problems.insert(candidate.problem);
    std::vector<RewardRow> rows;
    try {
      rows = hooks.score(*batch);
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
    drain();
    if (hooks.stages) registry.set_stages(hooks.stages());
    registry.complete(batch->batch_id, std::move(rows));
  }
  drain();
  return ServeEnd::finished;
}

std::size_t restore_logged_batches(BatchRegistry &registry, const std::vector<RewardRow> &rows) {
  std::map<std::string, std::vector<RewardRow>> by_batch;
  for (const RewardRow &row : rows) by_batch[row.batch_id].push_back(row);
  for (auto &[batch_id, batch_rows] : by_batch) registry.restore(batch_id, std::move(batch_rows));
  return by_batch.size();
}

}  // namespace hpcreward
