#include "coordinator/serving/batch_registry.hpp"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "common/sha256.hpp"
#include "coordinator/serving/serve_loop.hpp"
#include "tests/coordinator/served_rows.hpp"

namespace hpcreward {
namespace {

PreparedCandidate candidate(std::string id, std::string code = "void matmul(){}") {
  PreparedCandidate c;
  c.id = std::move(id);
  c.batch_id = "b";
  c.problem = "dgemm-256";
  c.code = std::move(code);
  return c;
}


std::vector<RewardRow> score(const QueuedBatch &batch) {
  std::vector<RewardRow> rows;
  for (const PreparedCandidate &c : batch.candidates) rows.push_back(ok_row_for(c, 1.0 + rows.size()));
  return rows;
}

TEST(BatchFingerprint, CoversIdProblemStageAndText) {
  CandidateIdentity a{"a", "dgemm-256", "", "source", sha256_hex("x")};
  const std::string base = batch_fingerprint({a});
  EXPECT_EQ(base, batch_fingerprint({a}));
  for (auto change : std::vector<std::function<void(CandidateIdentity &)>>{
           [](CandidateIdentity &c) { c.id = "b"; }, [](CandidateIdentity &c) { c.problem = "sgemm-512"; },
           [](CandidateIdentity &c) { c.stage = "o3"; }, [](CandidateIdentity &c) { c.text_kind = "completion"; },
           [](CandidateIdentity &c) { c.text_sha256 = sha256_hex("y"); }}) {
    CandidateIdentity other = a;
    change(other);
    EXPECT_NE(batch_fingerprint({other}), base);
  }
  EXPECT_NE(batch_fingerprint({a, a}), base);
}

TEST(BatchRegistry, RetryIsTheSameBatchAndOtherContentConflicts) {
  BatchRegistry registry;
  EXPECT_EQ(registry.submit("b", "f1", {candidate("x")}).kind, SubmitOutcome::accepted);
  EXPECT_EQ(registry.submit("b", "f1", {candidate("x")}).kind, SubmitOutcome::existing);
  SubmitOutcome conflict = registry.submit("b", "f2", {candidate("y")});
  EXPECT_EQ(conflict.kind, SubmitOutcome::conflict);
  EXPECT_NE(conflict.message.find("new batch_id"), std::string::npos);

  auto batch = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(batch);
  EXPECT_EQ(registry.snapshot("b")->state, BatchState::running);
  registry.complete("b", score(*batch));
  EXPECT_FALSE(registry.next(std::chrono::milliseconds(10))) << "a retry is never queued twice";
  EXPECT_EQ(registry.submit("b", "f1", {candidate("x")}).kind, SubmitOutcome::existing);
  auto snapshot = registry.wait("b");
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(snapshot->state, BatchState::done);
  ASSERT_EQ(snapshot->results.size(), 1u);
  EXPECT_EQ(snapshot->results[0].candidate_id, "x");
  EXPECT_FALSE(registry.wait("nope"));
}

TEST(BatchRegistry, ConcurrentRetriesWaitForTheOneScoring) {
  BatchRegistry registry;
  ASSERT_EQ(registry.submit("b", "f", {candidate("x"), candidate("y")}).kind, SubmitOutcome::accepted);
  std::vector<std::future<std::optional<BatchSnapshot>>> waiters;
  for (int i = 0; i < 4; ++i)
    waiters.push_back(std::async(std::launch::async, [&] {
      EXPECT_EQ(registry.submit("b", "f", {candidate("x"), candidate("y")}).kind, SubmitOutcome::existing);
      return registry.wait("b");
    }));
  auto batch = registry.next(std::chrono::milliseconds(100));
  ASSERT_TRUE(batch);
  registry.row_written("b");
  EXPECT_EQ(registry.snapshot("b")->done, 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  registry.complete("b", score(*batch));
  for (auto &waiter : waiters) {
    auto snapshot = waiter.get();
    ASSERT_TRUE(snapshot);
    ASSERT_EQ(snapshot->results.size(), 2u);
    EXPECT_EQ(snapshot->results[1].reward, 2.0);
  }
  EXPECT_FALSE(registry.next(std::chrono::milliseconds(10)));
}

TEST(BatchRegistry, ClosedTakesNoNewBatchesButAnswersKnownOnes) {
  BatchRegistry registry;
  registry.submit("old", "f", {candidate("x")});
  registry.close();
  EXPECT_EQ(registry.submit("new", "f", {candidate("x")}).kind, SubmitOutcome::closed);
  EXPECT_EQ(registry.submit("old", "f", {candidate("x")}).kind, SubmitOutcome::existing);
  EXPECT_FALSE(registry.idle());
  auto batch = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(batch) << "queued batches still finish";
  registry.complete("old", score(*batch));
  EXPECT_TRUE(registry.idle());
}

TEST(BatchRegistry, FailureAnswersEveryWaiter) {
  BatchRegistry registry;
  registry.submit("b", "f", {candidate("x")});
  auto waiter = std::async(std::launch::async, [&] { return registry.wait("b"); });
  registry.fail_all("rank 2 died");
  auto snapshot = waiter.get();
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(snapshot->state, BatchState::failed);
  EXPECT_EQ(snapshot->error, "rank 2 died");
  EXPECT_TRUE(registry.is_closed());
}

TEST(BatchRegistry, RestoredBatchesAreAnsweredFromTheLog) {
  BatchRegistry registry;
  std::vector<RewardRow> rows{ok_row_for(candidate("y"), 2), ok_row_for(candidate("x"), 1)};
  for (RewardRow &row : rows) row.batch_id = "full";
  std::vector<RewardRow> partial{ok_row_for(candidate("x"), 5)};
  partial[0].batch_id = "part";
  EXPECT_EQ(restore_logged_batches(registry, [&] {
              auto all = rows;
              all.push_back(partial[0]);
              return all;
            }()),
            2u);
  EXPECT_TRUE(registry.only_logged("full"));

  // All logged: queued from_log (the main thread reads its rows back), answered in the
  // request's order, scored never.
  EXPECT_EQ(registry.submit("full", "f", {candidate("x"), candidate("y")}).kind, SubmitOutcome::existing);
  EXPECT_FALSE(registry.only_logged("full"));
  auto full = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(full);
  EXPECT_TRUE(full->from_log);
  registry.complete_from_log("full", full->candidates, rows);
  auto snapshot = registry.snapshot("full");
  ASSERT_EQ(snapshot->state, BatchState::done);
  EXPECT_EQ(snapshot->results[0].reward, 1);
  EXPECT_EQ(snapshot->results[1].reward, 2);

  // Other code for a logged id: conflict, and the log's rows stay for a correct retry.
  SubmitOutcome conflict = registry.submit("part", "g", {candidate("x", "void matmul(){ }"), candidate("z")});
  EXPECT_EQ(conflict.kind, SubmitOutcome::conflict);
  EXPECT_NE(conflict.message.find("other code"), std::string::npos);
  EXPECT_EQ(registry.submit("part", "f", {candidate("z")}).kind, SubmitOutcome::conflict) << "lacks x";

  // Partly logged: queued with the count of its logged candidates (their rows are read from
  // the log when it is taken).
  EXPECT_EQ(registry.submit("part", "g", {candidate("x"), candidate("z")}).kind, SubmitOutcome::accepted);
  auto batch = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(batch);
  EXPECT_FALSE(batch->from_log);
  EXPECT_EQ(batch->logged_count, 1u);
  EXPECT_TRUE(batch->logged.empty()) << "the registry holds no logged rows";
  EXPECT_EQ(registry.snapshot("part")->done, 1u);
  EXPECT_FALSE(registry.next(std::chrono::milliseconds(10)));
}

TEST(ServeLoop, FinishesQueuedBatchesAfterAStopAndReportsDrained) {
  BatchRegistry registry;
  registry.submit("a", "f", {candidate("x")});
  registry.submit("b", "f", {candidate("y")});
  int scored = 0, drained = 0, published = 0;
  ServeHooks hooks;
  hooks.score = [&](QueuedBatch &batch) {
    ++scored;
    return score(batch);
  };
  hooks.drained = [&](const std::vector<std::string> &problems) {
    ++drained;
    EXPECT_EQ(problems, std::vector<std::string>{"dgemm-256"});
  };
  // The stages go out before each batch's results: a trainer never sees results without
  // the stage they moved the problem to.
  hooks.stages = [&]() -> std::map<std::string, std::string> {
    ++published;
    EXPECT_FALSE(registry.snapshot("b") && registry.snapshot("b")->state == BatchState::done);
    return {{"dgemm-256", published > 2 ? "o3" : "o0"}};
  };
  run_serve_loop(registry, hooks, [] { return true; });
  EXPECT_EQ(scored, 2);
  EXPECT_EQ(drained, 2) << "after each batch";
  EXPECT_EQ(published, 3) << "at start and after each batch";
  EXPECT_EQ(registry.stages().at("dgemm-256"), "o3");
  EXPECT_EQ(registry.snapshot("b")->state, BatchState::done);
  EXPECT_EQ(registry.submit("c", "f", {candidate("z")}).kind, SubmitOutcome::closed);
}

TEST(ServeLoop, ScoringFailureFailsWaitersAndIsRethrown) {
  BatchRegistry registry;
  registry.submit("a", "f", {candidate("x")});
  ServeHooks hooks;
  hooks.score = [](QueuedBatch &) -> std::vector<RewardRow> { throw std::runtime_error("rank 1 died"); };
  EXPECT_THROW(run_serve_loop(registry, hooks, [] { return false; }), std::runtime_error);
  EXPECT_EQ(registry.wait("a")->error, "rank 1 died");
}

TEST(BatchRegistry, ClosedForARequeueSaysWhyAndFailsQueuedBatchesWithRetry) {
  BatchRegistry registry;
  registry.submit("running", "f", {candidate("x")});
  registry.submit("queued", "f", {candidate("y")});
  auto batch = registry.next(std::chrono::milliseconds(10));
  ASSERT_TRUE(batch);
  auto waiter = std::async(std::launch::async, [&] { return registry.wait("queued"); });
  close_for_requeue(registry);
  const SubmitOutcome refused = registry.submit("new", "f", {candidate("z")});
  EXPECT_EQ(refused.kind, SubmitOutcome::closed) << "answered 503";
  EXPECT_EQ(refused.message, kRequeueRefusal);
  EXPECT_NE(refused.message.find("retry after it restarts"), std::string::npos);
  auto snapshot = waiter.get();
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(snapshot->state, BatchState::failed);
  EXPECT_NE(snapshot->error.find("retry it after the coordinator restarts"), std::string::npos) << snapshot->error;
  EXPECT_EQ(registry.snapshot("running")->state, BatchState::running) << "the batch in flight goes on";
  registry.fail_running(kRequeueRetry);
  EXPECT_EQ(registry.snapshot("running")->state, BatchState::failed);
  EXPECT_TRUE(registry.idle());
  close_for_requeue(registry);  // again: no harm
  EXPECT_EQ(registry.submit("new", "f", {candidate("z")}).message, kRequeueRefusal);
}

TEST(ServeLoop, RequeueFinishesTheBatchInFlightAndFailsTheRest) {
  BatchRegistry registry;
  registry.submit("a", "f", {candidate("x")});
  registry.submit("b", "f", {candidate("y")});
  bool requeue = false;
  int scored = 0;
  ServeHooks hooks;
  hooks.score = [&](QueuedBatch &batch) {
    ++scored;
    requeue = true;  // SIGUSR1 comes while batch a is scored; it still finishes in the grace
    return score(batch);
  };
  hooks.cut_short = [] { return false; };
  EXPECT_EQ(run_serve_loop(registry, hooks, [] { return false; }, [&] { return requeue; }), ServeEnd::requeue);
  EXPECT_EQ(scored, 1);
  EXPECT_EQ(registry.snapshot("a")->state, BatchState::done);
  EXPECT_EQ(registry.snapshot("b")->state, BatchState::failed);
  EXPECT_EQ(registry.snapshot("b")->error, kRequeueRetry);
  EXPECT_EQ(registry.submit("c", "f", {candidate("z")}).message, kRequeueRefusal);
}

TEST(ServeLoop, ABatchTheRequeueCutShortFailsWithRetry) {
  BatchRegistry registry;
  registry.submit("a", "f", {candidate("x"), candidate("y")});
  bool cut = false, drained = false;
  ServeHooks hooks;
  hooks.score = [&](QueuedBatch &batch) {
    cut = true;  // one candidate's rank did not answer within the grace
    std::vector<RewardRow> rows = score(batch);
    rows.pop_back();
    return rows;
  };
  hooks.cut_short = [&] { return cut; };
  hooks.drained = [&](const std::vector<std::string> &) { drained = true; };
  EXPECT_EQ(run_serve_loop(registry, hooks, [] { return false; }, [&] { return cut; }), ServeEnd::requeue);
  EXPECT_EQ(registry.snapshot("a")->state, BatchState::failed);
  EXPECT_EQ(registry.snapshot("a")->error, kRequeueRetry);
  EXPECT_FALSE(drained) << "no stage advance after a batch cut short";
  EXPECT_TRUE(registry.is_closed());
}

TEST(ServeLoop, SigtermStillFinishesWhatWasAccepted) {
  BatchRegistry registry;
  registry.submit("a", "f", {candidate("x")});
  ServeHooks hooks;
  hooks.score = [](QueuedBatch &batch) { return score(batch); };
  EXPECT_EQ(run_serve_loop(registry, hooks, [] { return true; }, [] { return false; }), ServeEnd::finished);
  EXPECT_EQ(registry.snapshot("a")->state, BatchState::done);
}

}  // namespace
}  // namespace hpcreward
