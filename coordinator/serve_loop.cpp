#include "coordinator/serve_loop.hpp"

#include <csignal>
#include <map>
#include <set>

namespace hpcreward {
namespace {

volatile std::sig_atomic_t stop_flag = 0;

extern "C" void on_stop_signal(int) { stop_flag = 1; }

}  // namespace

void install_stop_signals() {
  struct sigaction action = {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

bool stop_requested() { return stop_flag != 0; }

void run_serve_loop(BatchRegistry &registry, const ServeHooks &hooks, const std::function<bool()> &should_stop) {
  std::set<std::string> problems;  // scored since the last `drained`
  if (hooks.stages) registry.set_stages(hooks.stages());
  auto drain = [&] {
    if (problems.empty() || !hooks.drained) return;
    hooks.drained({problems.begin(), problems.end()});
    problems.clear();
  };
  while (true) {
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
    drain();
    if (hooks.stages) registry.set_stages(hooks.stages());
    registry.complete(batch->batch_id, std::move(rows));
  }
  drain();
}

std::size_t restore_logged_batches(BatchRegistry &registry, const std::vector<RewardRow> &rows) {
  std::map<std::string, std::vector<RewardRow>> by_batch;
  for (const RewardRow &row : rows) by_batch[row.batch_id].push_back(row);
  for (auto &[batch_id, batch_rows] : by_batch) registry.restore(batch_id, std::move(batch_rows));
  return by_batch.size();
}

}  // namespace hpcreward
