// Serve mode with batches in flight together: ranks take tasks of every admitted batch in
// order of admission, each batch is done when its own candidates are, and the stage ladder
// stays exact (a batch runs in the stage it was admitted in; advances are decided from each
// problem's rows in log order, and a rebuild from the log gives the live state).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/scoring/scoring_run.hpp"
#include "coordinator/serving/serve_loop.hpp"
#include "fake_transport.hpp"

namespace hpcreward {
namespace {

using test_support::FakeTransport;
using test_support::VectorSink;

// o0 advances after 2 ok of the last 2, o3 once a candidate reaches 3 GFLOPS.
constexpr const char *kLadder = R"({
  "ladder": ["o0", "o3", "blocking"],
  "avx512_unsupported": "skip",
  "archive_shaping": {"enabled": false, "new_niche_bonus": 5, "new_elite_bonus": 2},
  "stages": [
    {"name": "o0", "flags": ["-O0"], "allows": [], "requires": [],
     "advance": [{"type": "success_rate", "threshold": 1.0, "window": 2}]},
    {"name": "o3", "flags": ["-O3"], "allows": [], "requires": [],
     "advance": [{"type": "best_gflops", "threshold": 3.0}]},
    {"name": "blocking", "flags": ["-O3"], "allows": ["blocking"], "requires": ["blocking"], "advance": []}
  ]
})";

const LadderConfig &ladder() {
  static const LadderConfig config = parse_ladder_config(kLadder, "test ladder");
  return config;
}

PreparedCandidate ready(std::string id, std::string batch) {
  PreparedCandidate candidate;
  candidate.id = id;
  candidate.batch_id = batch;
  candidate.problem = "dgemm-256";
  candidate.code = "void matmul(){} /* " + batch + " " + id + " */";
  return candidate;
}

// Two CPU ranks of one slot; each batch's problems get their advances logged when it is done,
// as the serve loop does (ScoringRun::finish).
struct Served {
  Served() : sqd(ladder(), true) { transport.gflops = {{"slow", 2.0}}; }
  ScoringRun &run() {
    if (!scoring) {
      ScoringContext context{{1, 2}, "head", 42, {}};
      context.now = transport.clock();
      scoring.emplace(transport, sink, rewards, sqd, context);
    }
    return *scoring;
  }
  // Progress until every admitted batch is done; the tokens in the order they were done.
  std::vector<ScoringRun::DoneBatch> drain() {
    std::vector<ScoringRun::DoneBatch> done;
    while (run().in_flight() > 0)
      for (ScoringRun::DoneBatch &batch : run().progress(std::chrono::milliseconds(250))) {
        run().finish({"dgemm-256"});
        done.push_back(std::move(batch));
      }
    return done;
  }
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  SqdState sqd;
  std::optional<ScoringRun> scoring;
};

TEST(BatchesInFlight, RanksTakeTasksOfEveryBatchInOrderOfAdmissionAndEachBatchIsDoneByItsOwn) {
  Served served;
  served.transport.answer_after_id = {{"slow", 5.0}};  // a straggler holds rank 1
  const auto first = served.run().admit({ready("slow", "A"), ready("a1", "A")});
  const auto second = served.run().admit({ready("b0", "B"), ready("b1", "B")});
  const std::vector<ScoringRun::DoneBatch> done = served.drain();

  // Rank 2 went on with B while rank 1 held A's straggler: no rank waited for another batch.
  EXPECT_EQ(served.transport.sent_ids(1), std::vector<std::string>{"slow"});
  EXPECT_EQ(served.transport.sent_ids(2), (std::vector<std::string>{"a1", "b0", "b1"}));
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].token, second) << "B had every row first";
  EXPECT_EQ(done[1].token, first);
  for (const ScoringRun::DoneBatch &batch : done) EXPECT_FALSE(batch.cut_short);
  EXPECT_EQ(done[0].rows[0].candidate_id, "b0");
  EXPECT_EQ(done[0].rows[1].candidate_id, "b1");
  EXPECT_EQ(done[1].rows[0].candidate_id, "slow");
  EXPECT_EQ(done[1].rows[1].candidate_id, "a1");
  EXPECT_EQ(served.sink.rows.size(), 4u) << "one row per candidate";
}

TEST(BatchesInFlight, InputSeedsFollowTheOrderOfAdmissionAsOneAtATime) {
  Served served;
  served.run().continue_log(10);
  served.run().admit({ready("a0", "A"), ready("a1", "A")});
  served.run().admit({ready("b0", "B")});
  served.drain();
  std::map<std::string, std::uint64_t> seed;
  for (const BenchTask &task : served.transport.sent) seed[task.candidate_id] = task.seed;
  EXPECT_EQ(seed["a0"], candidate_seed(42, 10));
  EXPECT_EQ(seed["a1"], candidate_seed(42, 11));
  EXPECT_EQ(seed["b0"], candidate_seed(42, 12));
}

TEST(BatchesInFlight, OverlappingBatchesOfOneProblemAdvanceInLogOrderAndRebuildExactly) {
  Served served;
  served.transport.answer_after_id = {{"slow", 5.0}};
  // A and B are admitted together: both run in o0, the stage their problem had then.
  served.run().admit({ready("slow", "A"), ready("a1", "A")});
  served.run().admit({ready("b0", "B"), ready("b1", "B")});
  served.drain();
  const std::vector<RewardRow> &log = served.sink.rows;
  ASSERT_EQ(log.size(), 4u);
  for (const RewardRow &row : log) EXPECT_EQ(row.stage, "o0") << row.candidate_id;
  // B was done first (a1, b0, b1 ok: 2 of the last 2), so o0 -> o3 was logged after B's rows;
  // A's straggler came after the advance: an o0 row, which counts toward no stage.
  ASSERT_EQ(served.sink.events.size(), 1u);
  EXPECT_EQ(served.sink.events[0].from, "o0");
  EXPECT_EQ(served.sink.events[0].to, "o3");
  EXPECT_EQ(served.sink.events[0].rows_before, 3u);
  EXPECT_EQ(log[3].candidate_id, "slow");
  EXPECT_EQ(served.sqd.current_stage("dgemm-256"), "o3");

  // A batch admitted now runs in o3.
  served.run().admit({ready("c0", "C")});
  served.drain();
  EXPECT_EQ(served.sink.rows.back().stage, "o3");

  // The log, replayed in its order, gives the live state: a resume decides as the live run did.
  std::vector<ArchiveRecord> missing;
  SqdState rebuilt = SqdState::rebuild(ladder(), true, served.sink.rows, served.sink.events, served.sink.archive,
                                       [](const RewardRow &) { return std::optional<double>(); }, missing);
  EXPECT_EQ(rebuilt.stages(), served.sqd.stages());
  EXPECT_EQ(rebuilt.advance({"dgemm-256"}, 0).size(), served.sqd.advance({"dgemm-256"}, 0).size());
}

TEST(BatchesInFlight, AStopGivesUpOnlyTheBatchesNotDoneWithinTheGrace) {
  Served served;
  bool stop = false;
  ScoringContext context{{1, 2}, "head", 42, {}};
  context.now = served.transport.clock();
  context.stop_requested = [&] { return stop; };
  context.stop_grace_s = 1;
  ScoringRun run(served.transport, served.sink, served.rewards, served.sqd, context);
  served.transport.answer_after_id = {{"slow", 50.0}, {"b0", 0.5}};
  const auto first = run.admit({ready("slow", "A"), ready("a1", "A")});
  const auto second = run.admit({ready("b0", "B")});
  std::vector<ScoringRun::DoneBatch> done;
  const auto collect = [&] {
    for (ScoringRun::DoneBatch &batch : run.progress(std::chrono::milliseconds(250))) done.push_back(std::move(batch));
  };
  while (served.transport.sent.size() < 3) collect();
  stop = true;  // a requeue: b0 is answered within the grace, the straggler is not
  while (run.in_flight() > 0) collect();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].token, second);
  EXPECT_FALSE(done[0].cut_short) << "B's only candidate was answered in the grace";
  EXPECT_EQ(done[1].token, first);
  EXPECT_TRUE(done[1].cut_short);
  EXPECT_TRUE(run.cut_short());
  EXPECT_EQ(served.sink.rows.size(), 2u) << "a1 and b0; the straggler has no row (a resume scores it)";
}

// The serve loop over a scorer that finishes batches when the test says.
class HeldScorer : public BatchScorer {
 public:
  std::uint64_t admit(QueuedBatch &batch) override {
    admitted.push_back(batch.batch_id);
    held[++tokens] = batch;
    return tokens;
  }
  std::vector<Done> progress(std::chrono::milliseconds) override {
    ++calls;
    std::vector<Done> done;
    // Once enough are held (or after a few looks), all of them, the newest admitted first:
    // answers go out in the order batches are done, not admitted.
    if (held.size() < release_at && calls <= 3) return done;
    while (!held.empty()) {
      auto last = std::prev(held.end());
      std::vector<RewardRow> rows;
      for (const PreparedCandidate &candidate : last->second.candidates) {
        RewardRow row;
        row.candidate_id = candidate.id;
        row.batch_id = candidate.batch_id;
        row.status = "ok";
        rows.push_back(row);
      }
      done.push_back({last->first, rows, cut.count(last->second.batch_id) > 0});
      held.erase(last);
    }
    return done;
  }
  std::vector<std::string> admitted;
  std::map<std::uint64_t, QueuedBatch> held;
  std::set<std::string> cut;
  std::size_t release_at = 3;
  std::uint64_t tokens = 0;
  int calls = 0;
};

TEST(ServeLoopInFlight, EveryAcceptedBatchIsAdmittedInOrderAndAnsweredWhenDone) {
  BatchRegistry registry;
  for (const char *id : {"a", "b", "c"}) registry.submit(id, id, {ready("q0", id)});
  auto scorer = std::make_shared<HeldScorer>();
  ServeHooks hooks;
  hooks.scorer = scorer;
  hooks.batches_in_flight = 0;
  std::vector<std::string> drained_while;  // which batches were still not done at each drain
  hooks.drained = [&](const std::vector<std::string> &) {
    std::string running;
    for (const char *id : {"a", "b", "c"})
      if (registry.snapshot(id)->state != BatchState::done) running += id;
    drained_while.push_back(running);
  };
  EXPECT_EQ(run_serve_loop(registry, hooks, [] { return true; }), ServeEnd::finished);
  EXPECT_EQ(scorer->admitted, (std::vector<std::string>{"a", "b", "c"})) << "all three in flight, in order";
  // c was done first, then b, then a: each drained (advances logged) before its own answer.
  EXPECT_EQ(drained_while, (std::vector<std::string>{"abc", "ab", "a"}));
  for (const char *id : {"a", "b", "c"}) EXPECT_EQ(registry.snapshot(id)->results.at(0).batch_id, id);
}

TEST(ServeLoopInFlight, TheLimitKeepsLaterBatchesQueued) {
  BatchRegistry registry;
  for (const char *id : {"a", "b", "c"}) registry.submit(id, id, {ready("q0", id)});
  auto scorer = std::make_shared<HeldScorer>();
  scorer->release_at = 2;
  ServeHooks hooks;
  hooks.scorer = scorer;
  hooks.batches_in_flight = 2;
  std::vector<std::size_t> admitted_at_drain;
  hooks.drained = [&](const std::vector<std::string> &) { admitted_at_drain.push_back(scorer->admitted.size()); };
  run_serve_loop(registry, hooks, [] { return true; });
  EXPECT_EQ(scorer->admitted, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_FALSE(admitted_at_drain.empty());
  EXPECT_EQ(admitted_at_drain.front(), 2u) << "c waited in the queue while two were in flight";
  for (const char *id : {"a", "b", "c"}) EXPECT_EQ(registry.snapshot(id)->state, BatchState::done);
}

TEST(ServeLoopInFlight, ARequeueFailsOnlyTheBatchesItCutShortAndTheQueuedOnes) {
  BatchRegistry registry;
  for (const char *id : {"a", "b"}) registry.submit(id, id, {ready("q0", id)});
  auto scorer = std::make_shared<HeldScorer>();
  scorer->release_at = 2;
  scorer->cut = {"a"};  // the stop's grace ended with a's candidate still out
  ServeHooks hooks;
  hooks.scorer = scorer;
  hooks.batches_in_flight = 2;
  hooks.drained = [&](const std::vector<std::string> &) {
    registry.submit("late", "late", {ready("q0", "late")});  // queued behind the two in flight
  };
  EXPECT_EQ(run_serve_loop(registry, hooks, [] { return false; }, [] { return false; }), ServeEnd::requeue)
      << "a batch cut short by the scorer's stop ends serving for the requeue";
  EXPECT_EQ(registry.snapshot("b")->state, BatchState::done) << "done in the grace: answered";
  EXPECT_EQ(registry.snapshot("a")->state, BatchState::failed);
  EXPECT_TRUE(registry.snapshot("a")->retry_later);
  EXPECT_EQ(registry.snapshot("late")->state, BatchState::failed);
  EXPECT_TRUE(registry.snapshot("late")->retry_later);
}

}  // namespace
}  // namespace hpcreward
