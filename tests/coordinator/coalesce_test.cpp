// Coalescing per-sample requests (coordinator/README.md, "Coalescing per-sample requests"):
// the registry gathers queued single-candidate batches into one group, the serve loop scores
// the group as one batch (one stage, one advance check) and answers each member with its row.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "coordinator/serving/batch_registry.hpp"
#include "coordinator/scoring/scoring_run.hpp"
#include "coordinator/serving/serve_loop.hpp"
#include "fake_transport.hpp"
#include "tests/coordinator/served_rows.hpp"

namespace hpcreward {
namespace {

using namespace std::chrono_literals;
using test_support::FakeTransport;
using test_support::VectorSink;

// A single-candidate request as /get_reward makes it: candidate "q0" in its own batch.
PreparedCandidate single(const std::string &batch_id, const std::string &id = "q0") {
  PreparedCandidate c;
  c.id = id;
  c.batch_id = batch_id;
  c.problem = "dgemm-256";
  c.code = "void matmul(){} /* " + batch_id + " */";
  return c;
}

std::string fingerprint_of(const std::vector<PreparedCandidate> &candidates) {
  std::vector<CandidateIdentity> identities;
  for (const PreparedCandidate &c : candidates)
    identities.push_back({c.id, c.problem, "", "source", sha256_hex(c.code)});
  return batch_fingerprint(identities);
}

SubmitOutcome submit(BatchRegistry &registry, const std::vector<PreparedCandidate> &candidates) {
  return registry.submit(candidates.front().batch_id, fingerprint_of(candidates), candidates);
}

std::vector<std::string> ids_of(const std::vector<QueuedBatch> &group) {
  std::vector<std::string> ids;
  for (const QueuedBatch &member : group) ids.push_back(member.batch_id);
  return ids;
}

std::vector<RewardRow> rows_for(const QueuedBatch &batch) {
  std::vector<RewardRow> rows;
  for (const PreparedCandidate &c : batch.candidates) rows.push_back(ok_row_for(c));
  return rows;
}

TEST(CoalesceBatchRegistry, SinglesWithinTheWindowAreTakenAsOneGroupInArrivalOrder) {
  BatchRegistry registry(CoalescePolicy{30ms, 256});
  for (const char *id : {"r0", "r1", "r2", "r3"}) ASSERT_EQ(submit(registry, {single(id)}).kind, SubmitOutcome::accepted);
  const auto start = std::chrono::steady_clock::now();
  auto group = registry.next_group(5000ms);
  ASSERT_TRUE(group);
  EXPECT_EQ(ids_of(*group), (std::vector<std::string>{"r0", "r1", "r2", "r3"}));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s) << "taken when the window ended, not at the timeout";
  for (const char *id : {"r0", "r3"}) EXPECT_EQ(registry.snapshot(id)->state, BatchState::running);
  EXPECT_FALSE(registry.idle());
}

TEST(CoalesceBatchRegistry, AFullGroupGoesAtOnceAndTheWindowCountsFromTheFirst) {
  BatchRegistry registry(CoalescePolicy{60s, 3});
  submit(registry, {single("r0")});
  submit(registry, {single("r1")});
  EXPECT_FALSE(registry.next_group(10ms)) << "the window of a minute is still open";
  submit(registry, {single("r2")});
  submit(registry, {single("r3")});
  const auto start = std::chrono::steady_clock::now();
  auto group = registry.next_group(30s);
  ASSERT_TRUE(group);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(ids_of(*group), (std::vector<std::string>{"r0", "r1", "r2"})) << "the cap, oldest first";
  EXPECT_FALSE(registry.next_group(10ms)) << "r3 opened a new window";
  registry.close();
  group = registry.next_group(10ms);
  ASSERT_TRUE(group) << "a closed registry takes no more requests: no need to wait";
  EXPECT_EQ(ids_of(*group), std::vector<std::string>{"r3"});
}

TEST(CoalesceBatchRegistry, WindowZeroTakesEveryBatchAlone) {
  BatchRegistry registry(CoalescePolicy{0ms, 256});
  for (const char *id : {"r0", "r1", "r2"}) submit(registry, {single(id)});
  for (const char *id : {"r0", "r1", "r2"}) {
    auto group = registry.next_group(10ms);
    ASSERT_TRUE(group);
    EXPECT_EQ(ids_of(*group), std::vector<std::string>{id});
  }
}

TEST(CoalesceBatchRegistry, MultiCandidateBatchesAreNeverMerged) {
  BatchRegistry registry(CoalescePolicy{20ms, 256});
  submit(registry, {single("step", "a"), single("step", "b")});
  submit(registry, {single("r0")});
  submit(registry, {single("r1")});
  auto group = registry.next_group(10ms);
  ASSERT_TRUE(group) << "the oldest is a trainer's own batch: at once";
  EXPECT_EQ(ids_of(*group), std::vector<std::string>{"step"});
  EXPECT_EQ((*group)[0].candidates.size(), 2u);
  group = registry.next_group(5000ms);
  ASSERT_TRUE(group);
  EXPECT_EQ(ids_of(*group), (std::vector<std::string>{"r0", "r1"}));
}

TEST(CoalesceBatchRegistry, ARetryOfACoalescedRequestIsAnsweredWithoutScoringAgain) {
  BatchRegistry registry(CoalescePolicy{1ms, 256});
  submit(registry, {single("r0")});
  submit(registry, {single("r1")});
  auto group = registry.next_group(5000ms);
  ASSERT_TRUE(group);
  ASSERT_EQ(group->size(), 2u);
  EXPECT_EQ(submit(registry, {single("r1")}).kind, SubmitOutcome::existing) << "while running";
  auto waiter = std::async(std::launch::async, [&] { return registry.wait("r1"); });
  complete_group(registry, *group, rows_for(merge_group(*group)));
  auto snapshot = waiter.get();
  ASSERT_TRUE(snapshot);
  ASSERT_EQ(snapshot->results.size(), 1u);
  EXPECT_EQ(snapshot->results[0].batch_id, "r1");
  EXPECT_EQ(submit(registry, {single("r1")}).kind, SubmitOutcome::existing) << "once done";
  EXPECT_EQ(registry.snapshot("r0")->results[0].batch_id, "r0");
  EXPECT_FALSE(registry.next_group(20ms)) << "never queued twice";
  EXPECT_TRUE(registry.idle());
}

TEST(CoalesceServeLoop, ARequeueFailsEveryCoalescedCallerRetryably) {
  BatchRegistry registry(CoalescePolicy{60s, 3});
  std::vector<std::future<std::optional<BatchSnapshot>>> waiters;
  for (const char *id : {"r0", "r1", "r2", "r3"}) {
    submit(registry, {single(id)});
    waiters.push_back(std::async(std::launch::async, [&registry, id = std::string(id)] { return registry.wait(id); }));
  }
  bool cut = false;
  int calls = 0;
  ServeHooks hooks;
  hooks.score = [&](QueuedBatch &batch) {
    ++calls;
    EXPECT_EQ(batch.candidates.size(), 3u);
    cut = true;  // SIGUSR1 in the group; one rank did not answer within the grace
    std::vector<RewardRow> rows = rows_for(batch);
    rows.pop_back();
    return rows;
  };
  hooks.cut_short = [&] { return cut; };
  EXPECT_EQ(run_serve_loop(registry, hooks, [] { return false; }, [&] { return cut; }), ServeEnd::requeue);
  EXPECT_EQ(calls, 1);
  for (auto &waiter : waiters) {
    auto snapshot = waiter.get();
    ASSERT_TRUE(snapshot);
    EXPECT_EQ(snapshot->state, BatchState::failed) << snapshot->batch_id;
    EXPECT_TRUE(snapshot->retry_later) << snapshot->batch_id << ": answered 503, the client retries";
    EXPECT_EQ(snapshot->error, kRequeueRetry);
  }
  EXPECT_EQ(submit(registry, {single("r9")}).message, kRequeueRefusal);
}

// o0 advances after 2 of the last 2 ok: scored one by one, single requests would move the
// problem to o3 after the second of them.
constexpr const char *kLadder = R"({
  "ladder": ["o0", "o3"],
  "avx512_unsupported": "skip",
  "stages": [
    {"name": "o0", "flags": ["-O0"], "allows": [], "requires": [],
     "advance": [{"type": "success_rate", "threshold": 1.0, "window": 2}]},
    {"name": "o3", "flags": ["-O3"], "allows": [], "requires": [], "advance": []}
  ]
})";

TEST(CoalesceServeLoop, ConcurrentSinglesAreOneScoringCallInOneStageAndEachCallerGetsItsRow) {
  constexpr int kCallers = 8;
  const LadderConfig ladder = parse_ladder_config(kLadder, "test ladder");
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  SqdState sqd(ladder, true);
  ScoringRun scoring(transport, sink, rewards, sqd, {{1, 2}, "head", 42, {}});
  BatchRegistry registry(CoalescePolicy{60s, kCallers});  // the cap, not the clock, sends it

  std::vector<std::future<std::optional<BatchSnapshot>>> callers;
  for (int i = 0; i < kCallers; ++i)
    callers.push_back(std::async(std::launch::async, [&registry, i] {
      const std::string id = "openrlhf-" + std::to_string(i);
      EXPECT_EQ(submit(registry, {single(id)}).kind, SubmitOutcome::accepted);
      return registry.wait(id);
    }));
  int calls = 0, drained = 0;
  ServeHooks hooks;
  hooks.score = [&](QueuedBatch &batch) {
    ++calls;
    EXPECT_EQ(batch.candidates.size(), static_cast<std::size_t>(kCallers));
    return scoring.score_one_batch(std::move(batch.candidates), batch.logged);
  };
  hooks.drained = [&](const std::vector<std::string> &problems) {
    ++drained;
    scoring.finish(problems);
  };
  hooks.stages = [&] { return sqd.stages(); };
  std::vector<std::string> notes;
  hooks.note = [&](const std::string &line) { notes.push_back(line); };
  auto all_done = [&] {
    for (int i = 0; i < kCallers; ++i) {
      auto snapshot = registry.snapshot("openrlhf-" + std::to_string(i));
      if (!snapshot || snapshot->state != BatchState::done) return false;
    }
    return true;
  };
  run_serve_loop(registry, hooks, all_done);

  EXPECT_EQ(calls, 1) << "one pipeline batch";
  EXPECT_EQ(drained, 1) << "one advance check, after the group";
  EXPECT_EQ(transport.sent.size(), static_cast<std::size_t>(kCallers)) << "same candidate id, other batches";
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.front().find("coalesced 8 single-candidate requests"), std::string::npos) << notes.front();
  for (int i = 0; i < kCallers; ++i) {
    const std::string id = "openrlhf-" + std::to_string(i);
    auto snapshot = callers[static_cast<std::size_t>(i)].get();
    ASSERT_TRUE(snapshot);
    ASSERT_EQ(snapshot->results.size(), 1u) << id;
    const RewardRow &row = snapshot->results[0];
    EXPECT_EQ(row.batch_id, id);
    EXPECT_EQ(row.candidate_id, "q0");
    EXPECT_EQ(row.status, "ok");
    EXPECT_EQ(row.source_sha256, sha256_hex(single(id).code)) << "its own candidate's row";
    EXPECT_EQ(row.stage, "o0") << "the whole group in the stage it started in";
  }
  ASSERT_EQ(sink.rows.size(), static_cast<std::size_t>(kCallers)) << "each candidate logged once";
  for (const RewardRow &row : sink.rows) EXPECT_EQ(row.stage, "o0");
  ASSERT_EQ(sink.events.size(), 1u) << "the advance the group earned, once, after it";
  EXPECT_EQ(sink.events[0].to, "o3");
  EXPECT_EQ(sink.events[0].rows_before, static_cast<std::size_t>(kCallers));
  EXPECT_EQ(registry.stages().at("dgemm-256"), "o3") << "published before the answers";

  // A retry in this run: the registry's answer, nothing scored or logged.
  EXPECT_EQ(submit(registry, {single("openrlhf-3")}).kind, SubmitOutcome::existing);
  EXPECT_EQ(registry.snapshot("openrlhf-3")->results[0].source_sha256, sha256_hex(single("openrlhf-3").code));

  // After a restart (--resume): the log's rows, grouped by the batch_id each was logged with,
  // answer every original request by its own id, each on its own (never coalesced: the
  // window is 60 s, a coalesced group would not come within 10 ms).
  BatchRegistry restarted(CoalescePolicy{60s, kCallers});
  EXPECT_EQ(restore_logged_batches(restarted, sink.rows), static_cast<std::size_t>(kCallers));
  for (int i = 0; i < kCallers; ++i)
    EXPECT_EQ(submit(restarted, {single("openrlhf-" + std::to_string(i))}).kind, SubmitOutcome::existing) << i;
  for (int i = 0; i < kCallers; ++i) {
    const std::string id = "openrlhf-" + std::to_string(i);
    auto group = restarted.next_group(10ms);
    ASSERT_TRUE(group) << id;
    ASSERT_EQ(group->size(), 1u);
    const QueuedBatch &batch = group->front();
    EXPECT_EQ(batch.batch_id, id);
    EXPECT_TRUE(batch.from_log);
    std::vector<RewardRow> logged;
    for (const RewardRow &row : sink.rows)
      if (row.batch_id == id) logged.push_back(row);
    restarted.complete_from_log(id, batch.candidates, logged);
    auto snapshot = restarted.snapshot(id);
    ASSERT_EQ(snapshot->state, BatchState::done) << snapshot->error;
    EXPECT_EQ(snapshot->results[0].source_sha256, sha256_hex(single(id).code));
  }
  EXPECT_FALSE(restarted.next_group(10ms)) << "nothing to score again";
  EXPECT_EQ(transport.sent.size(), static_cast<std::size_t>(kCallers));
}

}  // namespace
}  // namespace hpcreward
