#pragma once
// What tests of a serve loop on its own thread share: the thread, a "log" read back by batch id
// within a row range (as RewardLogWriter::rows_of_batch reads the HDF5 log), and a submit that
// waits for its answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/serving/batch_registry.hpp"
#include "coordinator/serving/serve_loop.hpp"

namespace hpcreward {

// run_serve_loop until destroyed. Declare it after everything its hooks use, so it stops first.
class ServeLoopThread {
 public:
  ServeLoopThread() = default;
  ServeLoopThread(const ServeLoopThread &) = delete;
  ServeLoopThread &operator=(const ServeLoopThread &) = delete;
  ~ServeLoopThread() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  void start(BatchRegistry &registry, ServeHooks hooks) {
    thread_ = std::thread([this, &registry, hooks = std::move(hooks)] {
      run_serve_loop(registry, hooks, [this] { return stop_.load(); });
    });
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The rows of `batch_id` among log[range.first, range.end), in log order.
inline std::vector<RewardRow> rows_of_batch_in(const std::vector<RewardRow> &log, const std::string &batch_id,
                                               LogRowRange range) {
  std::vector<RewardRow> rows;
  for (std::uint64_t i = range.first; i < std::min<std::uint64_t>(range.end, log.size()); ++i)
    if (log[i].batch_id == batch_id) rows.push_back(log[i]);
  return rows;
}

// Submits and waits for the answer (the registry's mutex orders the loop's work before it).
inline BatchSnapshot submit_and_wait(BatchRegistry &registry, const std::string &batch_id,
                                     const std::string &fingerprint, std::vector<PreparedCandidate> candidates,
                                     SubmitOutcome::Kind expected) {
  EXPECT_EQ(registry.submit(batch_id, fingerprint, std::move(candidates)).kind, expected) << batch_id;
  std::optional<BatchSnapshot> answer = registry.wait(batch_id);
  EXPECT_TRUE(answer) << batch_id;
  return answer.value_or(BatchSnapshot{});
}

}  // namespace hpcreward
