// The registry's memory bound: answered batches past keep_answered_rows leave memory, and a
// retry of one is answered from the log's rows (never scored or logged twice).
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "coordinator/serving/batch_registry.hpp"
#include "coordinator/serving/serve_loop.hpp"
#include "tests/coordinator/threaded_serve_loop.hpp"
#include "tests/coordinator/served_rows.hpp"

namespace hpcreward {
namespace {

PreparedCandidate candidate(const std::string &batch_id, std::string id, std::string code = "void matmul(){}") {
  PreparedCandidate c;
  c.id = std::move(id);
  c.batch_id = batch_id;
  c.problem = "dgemm-256";
  c.code = std::move(code);
  return c;
}

std::vector<PreparedCandidate> batch_of(const std::string &batch_id, int size) {
  std::vector<PreparedCandidate> candidates;
  for (int i = 0; i < size; ++i) candidates.push_back(candidate(batch_id, "c" + std::to_string(i)));
  return candidates;
}

// A serve loop on its own thread whose "log" is a vector: every scored row is appended to
// it, and logged_rows reads it back by batch id, as RewardLogWriter::rows_of_batch does.
struct LoggedServe {
  BatchRegistry registry;
  std::vector<RewardRow> log;  // touched by the loop only while a batch is in flight
  int scored_batches = 0;
  int log_reads = 0;
  std::vector<LogRowRange> ranges_read;  // what each logged_rows call was asked to read
  ServeLoopThread loop;  // last: it stops before the rest goes

  explicit LoggedServe(std::size_t keep_rows) : registry(CoalescePolicy{}, keep_rows) { loop.start(registry, hooks()); }

  ServeHooks hooks() {
    ServeHooks hooks;
    hooks.score = [this](QueuedBatch &batch) {
      ++scored_batches;
      std::vector<RewardRow> rows;
      for (const PreparedCandidate &c : batch.candidates) rows.push_back(ok_row_for(c, 1.0 + static_cast<double>(log.size())));
      log.insert(log.end(), rows.begin(), rows.end());
      return rows;
    };
    // Reads only the range it is given, as RewardLogWriter::rows_of_batch does.
    hooks.logged_rows = [this](const std::string &batch_id, LogRowRange range) {
      ++log_reads;
      ranges_read.push_back(range);
      return rows_of_batch_in(log, batch_id, range);
    };
    hooks.rows_in_log = [this] { return static_cast<std::uint64_t>(log.size()); };
    return hooks;
  }

  BatchSnapshot serve(const std::string &batch_id, const std::string &fingerprint,
                      std::vector<PreparedCandidate> candidates, SubmitOutcome::Kind expected) {
    return submit_and_wait(registry, batch_id, fingerprint, std::move(candidates), expected);
  }
};

TEST(BatchEviction, OldAnswersLeaveMemoryAndARetryIsAnsweredFromTheLog) {
  BatchRegistry registry(CoalescePolicy{}, 4);
  const auto answer = [&](const std::string &id, int size) {
    ASSERT_EQ(registry.submit(id, "f" + id, batch_of(id, size)).kind, SubmitOutcome::accepted);
    auto batch = registry.next(std::chrono::milliseconds(10));
    ASSERT_TRUE(batch);
    std::vector<RewardRow> rows;
    for (const PreparedCandidate &c : batch->candidates) rows.push_back(ok_row_for(c, 7));
    registry.complete(id, rows);
  };
  answer("a", 3);
  answer("b", 1);
  EXPECT_EQ(registry.batches_in_memory(), 2u) << "4 rows: within the bound";
  answer("c", 2);  // 6 rows: "a" goes
  EXPECT_EQ(registry.batches_in_memory(), 2u);
  EXPECT_EQ(registry.batches(), 3u) << "still known by id";
  EXPECT_FALSE(registry.snapshot("a"));
  EXPECT_TRUE(registry.only_logged("a"));
  EXPECT_TRUE(registry.snapshot("b"));

  EXPECT_EQ(registry.submit("a", "other", batch_of("a", 3)).kind, SubmitOutcome::conflict)
      << "other content under an answered id is a conflict, in memory or not";
  EXPECT_EQ(registry.submit("a", "fa", batch_of("a", 3)).kind, SubmitOutcome::existing);
  auto retry = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(retry);
  EXPECT_TRUE(retry->from_log) << "the main thread answers it from the log, scoring nothing";
}

TEST(BatchEviction, AnEvictedBatchRemembersWhereItsRowsLie) {
  BatchRegistry registry(CoalescePolicy{}, 1);
  ASSERT_EQ(registry.submit("a", "fa", batch_of("a", 2)).kind, SubmitOutcome::accepted);
  auto a = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(a);
  registry.complete("a", {ok_row_for(a->candidates[0]), ok_row_for(a->candidates[1])}, {40, 42});
  ASSERT_EQ(registry.submit("b", "fb", batch_of("b", 1)).kind, SubmitOutcome::accepted);
  auto b = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(b);
  registry.complete("b", {ok_row_for(b->candidates[0])}, {42, 43});  // "a" leaves memory
  ASSERT_TRUE(registry.only_logged("a"));
  EXPECT_EQ(registry.submit("a", "fa", batch_of("a", 2)).kind, SubmitOutcome::existing);
  auto retry = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(retry);
  EXPECT_TRUE(retry->from_log);
  EXPECT_EQ(retry->log_rows.first, 40u) << "its retry reads rows 40 to 42, not the whole log";
  EXPECT_EQ(retry->log_rows.end, 42u);
}

TEST(BatchEviction, ANewestBatchLargerThanTheBoundStays) {
  BatchRegistry registry(CoalescePolicy{}, 2);
  ASSERT_EQ(registry.submit("big", "f", batch_of("big", 5)).kind, SubmitOutcome::accepted);
  auto batch = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(batch);
  std::vector<RewardRow> rows;
  for (const PreparedCandidate &c : batch->candidates) rows.push_back(ok_row_for(c));
  registry.complete("big", rows);
  ASSERT_TRUE(registry.snapshot("big"));
  EXPECT_EQ(registry.snapshot("big")->results.size(), 5u);
}

TEST(BatchEviction, ServeLoopAnswersAnEvictedRetryFromTheLogInTheRequestsOrder) {
  LoggedServe serve(2);
  const BatchSnapshot first = serve.serve("a", "fa", batch_of("a", 2), SubmitOutcome::accepted);
  ASSERT_EQ(first.state, BatchState::done);
  serve.serve("b", "fb", batch_of("b", 2), SubmitOutcome::accepted);
  serve.serve("c", "fc", batch_of("c", 2), SubmitOutcome::accepted);
  ASSERT_FALSE(serve.registry.snapshot("a")) << "evicted";
  ASSERT_EQ(serve.scored_batches, 3);
  const std::size_t logged = serve.log.size();

  // The retry lists the candidates in another order: the answer follows the request.
  std::vector<PreparedCandidate> reordered = batch_of("a", 2);
  std::swap(reordered[0], reordered[1]);
  const BatchSnapshot again = serve.serve("a", "fa", reordered, SubmitOutcome::existing);
  ASSERT_EQ(again.state, BatchState::done) << again.error;
  EXPECT_EQ(serve.scored_batches, 3) << "never scored twice";
  EXPECT_EQ(serve.log.size(), logged) << "never logged twice";
  EXPECT_EQ(serve.log_reads, 1);
  ASSERT_EQ(serve.ranges_read.size(), 1u);
  EXPECT_EQ(serve.ranges_read[0].first, 0u) << "only the rows batch a was written in";
  EXPECT_EQ(serve.ranges_read[0].end, 2u);
  ASSERT_EQ(again.results.size(), 2u);
  EXPECT_EQ(again.results[0].candidate_id, "c1");
  EXPECT_EQ(again.results[0].reward, first.results[1].reward);
  EXPECT_EQ(again.results[1].candidate_id, "c0");
  EXPECT_EQ(again.results[1].reward, first.results[0].reward);
}

TEST(BatchEviction, AnEvictedRetryWhoseLogRowsAreMissingFailsAndIsNotScored) {
  LoggedServe serve(1);
  serve.serve("a", "fa", batch_of("a", 1), SubmitOutcome::accepted);
  serve.serve("b", "fb", batch_of("b", 1), SubmitOutcome::accepted);
  ASSERT_FALSE(serve.registry.snapshot("a"));
  serve.log.clear();  // a log that lost the rows it answered with
  const BatchSnapshot again = serve.serve("a", "fa", batch_of("a", 1), SubmitOutcome::existing);
  EXPECT_EQ(again.state, BatchState::failed);
  EXPECT_NE(again.error.find("no row in the log"), std::string::npos) << again.error;
  EXPECT_EQ(serve.scored_batches, 2);
}

TEST(BatchEviction, AnAnswerIsNotEvictedWhileACallerWaitsOnIt) {
  BatchRegistry registry(CoalescePolicy{}, 1);
  ASSERT_EQ(registry.submit("a", "fa", batch_of("a", 1)).kind, SubmitOutcome::accepted);
  auto a = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(a);
  ASSERT_EQ(registry.submit("b", "fb", batch_of("b", 1)).kind, SubmitOutcome::accepted);
  auto b = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(b);
  auto waiter = std::async(std::launch::async, [&] { return registry.wait("a"); });
  while (registry.waiters("a") == 0) std::this_thread::yield();
  // "a" then "b" answered at once, before the waiter wakes: "b" must not evict "a" under it.
  registry.complete("a", {ok_row_for(a->candidates[0], 3)});
  registry.complete("b", {ok_row_for(b->candidates[0], 4)});
  const std::optional<BatchSnapshot> answer = waiter.get();
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->results.size(), 1u);
  EXPECT_EQ(answer->results[0].reward, 3);
  // Once read, the next answer evicts it.
  ASSERT_EQ(registry.submit("c", "fc", batch_of("c", 1)).kind, SubmitOutcome::accepted);
  auto c = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(c);
  registry.complete("c", {ok_row_for(c->candidates[0], 5)});
  EXPECT_FALSE(registry.snapshot("a"));
  EXPECT_FALSE(registry.snapshot("b"));
}

}  // namespace
}  // namespace hpcreward
