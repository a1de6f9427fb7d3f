#pragma once
// Serve mode's main-thread loop: takes the next queued batch from the registry, scores it
// (all MPI stays on this thread), publishes its rows; on SIGTERM/SIGINT it takes no new
// batches, finishes those queued or in flight, and returns.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "coordinator/batch_registry.hpp"

namespace hpcreward {

struct ServeHooks {
  // Scores one batch; returns a row per candidate in the batch's order (ScoringRun::score_one_batch).
  std::function<std::vector<RewardRow>(QueuedBatch &)> score;
  // Called after each batch, before its results are published, with the problems it scored
  // (ScoringRun::finish: log the stage advances they earned), so a trainer that gets the
  // results already sees the next stage.
  std::function<void(const std::vector<std::string> &problems)> drained;
  // Each problem's current stage, published with every batch's results (BatchRegistry::stages).
  std::function<std::map<std::string, std::string>()> stages;
  // Lines for the operator.
  std::function<void(const std::string &)> note;
};

// SIGTERM and SIGINT set a flag that stop_requested() reads (async-signal-safe).
void install_stop_signals();
bool stop_requested();

// Runs until `should_stop` says so and every accepted batch is done. A scoring failure
// fails every batch not done (their waiting requests get 500) and is rethrown.
void run_serve_loop(BatchRegistry &registry, const ServeHooks &hooks, const std::function<bool()> &should_stop);

// --resume: the log's rows grouped by batch_id into the registry. Returns how many batches.
std::size_t restore_logged_batches(BatchRegistry &registry, const std::vector<RewardRow> &rows);

}  // namespace hpcreward
