// Serve mode after --resume: the registry keeps only the logged rows' identities;
// a resubmitted batch the log answers in full comes from the log (read on the main thread),
// a partly logged one has only its missing candidates scored, and anything else under a
// logged batch_id is a conflict.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common/sha256.hpp"
#include "coordinator/serving/batch_registry.hpp"
#include "coordinator/scoring/scoring_run.hpp"
#include "coordinator/serving/serve_loop.hpp"
#include "tests/coordinator/threaded_serve_loop.hpp"
#include "fake_transport.hpp"
#include "tests/coordinator/served_rows.hpp"

namespace hpcreward {
namespace {

using namespace std::chrono_literals;
using test_support::FakeTransport;
using test_support::VectorSink;

PreparedCandidate candidate(const std::string &batch_id, const std::string &id) {
  PreparedCandidate c;
  c.id = id;
  c.batch_id = batch_id;
  c.problem = "dgemm-256";
  c.code = "void matmul(){} /* " + id + " */";
  return c;
}

std::vector<PreparedCandidate> batch_of(const std::string &batch_id, const std::vector<std::string> &ids) {
  std::vector<PreparedCandidate> candidates;
  for (const std::string &id : ids) candidates.push_back(candidate(batch_id, id));
  return candidates;
}

// A row "logged before the restart", with a reward that tells it apart from a new one.
RewardRow logged_row(const std::string &batch_id, const std::string &id, double reward) {
  return ok_row_for(candidate(batch_id, id), reward);
}

constexpr const char *kLadder = R"({
  "ladder": ["o0"], "avx512_unsupported": "skip",
  "stages": [{"name": "o0", "flags": ["-O0"], "allows": [], "requires": [], "advance": []}]
})";

// A resumed serve loop on its own thread: real scoring (fake ranks), a "log" that starts with
// the rows from before the restart and grows with what is scored; logged_rows reads it back
// by batch id, as RewardLogWriter::rows_of_batch does.
struct ResumedServe {
  LadderConfig ladder = parse_ladder_config(kLadder, "test ladder");
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  SqdState sqd{ladder, true};
  ScoringRun scoring{transport, sink, rewards, sqd, {{1}, "head", 42, {}}};
  BatchRegistry registry;
  std::vector<RewardRow> before_restart;
  int scored_batches = 0;
  int log_reads = 0;
  std::vector<LogRowRange> ranges_read;
  ServeLoopThread loop;  // last: it stops before the rest goes

  explicit ResumedServe(std::vector<RewardRow> logged) : before_restart(std::move(logged)) {
    restore_logged_batches(registry, before_restart);
    scoring.continue_log(before_restart.size());
    loop.start(registry, hooks());
  }

  ServeHooks hooks() {
    ServeHooks hooks;
    hooks.score = [this](QueuedBatch &batch) {
      ++scored_batches;
      return scoring.score_one_batch(std::move(batch.candidates), batch.logged);
    };
    // Reads only the range it is given, as RewardLogWriter::rows_of_batch does.
    hooks.logged_rows = [this](const std::string &batch_id, LogRowRange range) {
      ++log_reads;
      ranges_read.push_back(range);
      std::vector<RewardRow> log = before_restart;
      log.insert(log.end(), sink.rows.begin(), sink.rows.end());
      return rows_of_batch_in(log, batch_id, range);
    };
    return hooks;
  }

  BatchSnapshot serve(const std::string &batch_id, std::vector<PreparedCandidate> candidates,
                      SubmitOutcome::Kind expected) {
    return submit_and_wait(registry, batch_id, "f-" + batch_id, std::move(candidates), expected);
  }
};

TEST(ResumedServe, AnAllLoggedBatchIsAnsweredFromTheLogInTheRequestsOrderAndNothingIsScored) {
  ResumedServe serve({logged_row("other", "c0", 99), logged_row("a", "c0", 10), logged_row("other", "c1", 98),
                      logged_row("a", "c1", 11), logged_row("a", "c2", 12), logged_row("other", "c2", 97)});
  EXPECT_EQ(serve.registry.restored(), 2u);
  EXPECT_EQ(serve.registry.restored_rows(), 6u);
  const BatchSnapshot answer = serve.serve("a", batch_of("a", {"c2", "c0", "c1"}), SubmitOutcome::existing);
  ASSERT_EQ(answer.state, BatchState::done) << answer.error;
  ASSERT_EQ(answer.results.size(), 3u);
  EXPECT_EQ(answer.results[0].candidate_id, "c2");
  EXPECT_EQ(answer.results[0].reward, 12);
  EXPECT_EQ(answer.results[1].candidate_id, "c0");
  EXPECT_EQ(answer.results[1].reward, 10);
  EXPECT_EQ(answer.results[2].candidate_id, "c1");
  EXPECT_EQ(answer.results[2].reward, 11);
  EXPECT_EQ(serve.scored_batches, 0) << "never scored twice";
  EXPECT_TRUE(serve.transport.sent.empty());
  EXPECT_TRUE(serve.sink.rows.empty()) << "never logged twice";
  EXPECT_EQ(serve.log_reads, 1) << "its rows come from the log, on the main thread";
  ASSERT_EQ(serve.ranges_read.size(), 1u);
  EXPECT_EQ(serve.ranges_read[0].first, 1u) << "only the rows its logged rows span";
  EXPECT_EQ(serve.ranges_read[0].end, 5u);
  EXPECT_EQ(serve.registry.restored_rows(), 3u) << "its identities leave the registry; \"other\" stays";
}

TEST(ResumedServe, APartlyLoggedBatchScoresOnlyItsMissingCandidatesAndTakesTheOthersFromTheLog) {
  ResumedServe serve({logged_row("p", "c0", 10), logged_row("p", "c2", 12)});
  const BatchSnapshot answer = serve.serve("p", batch_of("p", {"c0", "c1", "c2", "c3"}), SubmitOutcome::accepted);
  ASSERT_EQ(answer.state, BatchState::done) << answer.error;
  EXPECT_EQ(serve.scored_batches, 1);
  EXPECT_EQ(serve.log_reads, 1) << "the logged rows are read back when the batch is taken";
  ASSERT_EQ(serve.ranges_read.size(), 1u);
  EXPECT_EQ(serve.ranges_read[0].first, 0u);
  EXPECT_EQ(serve.ranges_read[0].end, 2u);
  ASSERT_EQ(serve.transport.sent.size(), 2u) << "only the missing candidates go to a rank";
  EXPECT_EQ(serve.transport.sent[0].candidate_id, "c1");
  EXPECT_EQ(serve.transport.sent[1].candidate_id, "c3");
  ASSERT_EQ(serve.sink.rows.size(), 2u) << "and only they are logged";
  ASSERT_EQ(answer.results.size(), 4u);
  EXPECT_EQ(answer.results[0].candidate_id, "c0");
  EXPECT_EQ(answer.results[0].reward, 10) << "the log's row, not a new measurement";
  EXPECT_EQ(answer.results[2].candidate_id, "c2");
  EXPECT_EQ(answer.results[2].reward, 12);
  EXPECT_EQ(answer.results[1].candidate_id, "c1");
  EXPECT_EQ(answer.results[1].status, "ok");
  EXPECT_EQ(answer.results[3].candidate_id, "c3");
  EXPECT_EQ(answer.results[1].source_sha256, sha256_hex(candidate("p", "c1").code));
}

TEST(ResumedServe, APartlyLoggedBatchWhoseLogRowsAreGoneWhenTakenFailsAndIsNotScored) {
  ResumedServe serve({logged_row("p", "c0", 10)});
  serve.before_restart.clear();  // a log that lost the rows matched at submit
  const BatchSnapshot answer = serve.serve("p", batch_of("p", {"c0", "c1"}), SubmitOutcome::accepted);
  EXPECT_EQ(answer.state, BatchState::failed);
  EXPECT_NE(answer.error.find("1 of its candidates had a row in the log at submit, 0 have now"), std::string::npos)
      << answer.error;
  EXPECT_EQ(serve.scored_batches, 0);
  EXPECT_TRUE(serve.transport.sent.empty());
}

// Everything a resubmitted batch can differ in from its log rows is a conflict at submit,
// with the message it had before identities were kept; the identities stay for a correct retry.
TEST(ResumedRegistry, AMismatchWithTheLogIsAConflictAndARightRetryStillMatches) {
  BatchRegistry registry;
  RewardRow c0 = logged_row("m", "c0", 1);
  c0.stage = "o3";
  restore_logged_batches(registry, {c0, logged_row("m", "c1", 2)});
  struct Case {
    const char *what;
    std::vector<PreparedCandidate> candidates;
    const char *message;
  };
  std::vector<Case> cases;
  cases.push_back({"other code", batch_of("m", {"c0", "c1"}), "candidate \"c0\" was logged with other code"});
  cases.back().candidates[0].code += " ";
  cases.push_back({"other problem", batch_of("m", {"c0", "c1"}),
                   "candidate \"c1\" was logged for problem dgemm-256, not sgemm-512"});
  cases.back().candidates[1].problem = "sgemm-512";
  cases.push_back({"other stage", batch_of("m", {"c0", "c1"}), "candidate \"c0\" was logged in stage o3, not o0"});
  cases.back().candidates[0].stage = "o0";
  cases.back().candidates[0].stage_named = true;
  cases.push_back({"a missing id", batch_of("m", {"c1", "c2"}),
                   "the log holds candidate \"c0\" of this batch, which this request lacks"});
  for (Case &c : cases) {
    const SubmitOutcome outcome = registry.submit("m", "f", std::move(c.candidates));
    EXPECT_EQ(outcome.kind, SubmitOutcome::conflict) << c.what;
    EXPECT_EQ(outcome.message, std::string("batch_id \"m\" is in the log with other candidates: ") + c.message +
                                   "; use a new batch_id")
        << c.what;
  }
  EXPECT_TRUE(registry.only_logged("m"));
  EXPECT_EQ(registry.restored_rows(), 2u);
  // An unnamed stage takes the logged one; the right code and problem match.
  EXPECT_EQ(registry.submit("m", "f", batch_of("m", {"c1", "c0"})).kind, SubmitOutcome::existing);
  auto batch = registry.next(10ms);
  ASSERT_TRUE(batch);
  EXPECT_TRUE(batch->from_log);
}

TEST(ResumedRegistry, LoggedBatchesAreNeverCoalesced) {
  BatchRegistry registry(CoalescePolicy{60s, 4});
  restore_logged_batches(registry, {logged_row("all", "q0", 1), logged_row("part", "c0", 2)});
  ASSERT_EQ(registry.submit("s1", "f1", batch_of("s1", {"q0"})).kind, SubmitOutcome::accepted);
  ASSERT_EQ(registry.submit("all", "fa", batch_of("all", {"q0"})).kind, SubmitOutcome::existing);
  ASSERT_EQ(registry.submit("part", "fp", batch_of("part", {"c0", "c1"})).kind, SubmitOutcome::accepted);
  ASSERT_EQ(registry.submit("s2", "f2", batch_of("s2", {"q0"})).kind, SubmitOutcome::accepted);
  ASSERT_EQ(registry.submit("s3", "f3", batch_of("s3", {"q0"})).kind, SubmitOutcome::accepted);
  registry.close();  // the singles go without waiting the window
  auto singles = registry.next_group(10ms);
  ASSERT_TRUE(singles);
  ASSERT_EQ(singles->size(), 3u) << "s1, s2, s3 only";
  for (const QueuedBatch &member : *singles) EXPECT_FALSE(member.from_log || member.logged_count > 0);
  auto all = registry.next_group(10ms);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_TRUE(all->front().from_log);
  auto part = registry.next_group(10ms);
  ASSERT_TRUE(part);
  ASSERT_EQ(part->size(), 1u);
  EXPECT_EQ(part->front().batch_id, "part");
  EXPECT_EQ(part->front().logged_count, 1u);
}

TEST(ResumedRegistry, AClosedRegistryRefusesALoggedBatchAndKeepsItForAfterTheRestart) {
  BatchRegistry registry;
  restore_logged_batches(registry, {logged_row("a", "c0", 1)});
  registry.close("restarting");
  const SubmitOutcome outcome = registry.submit("a", "f", batch_of("a", {"c0"}));
  EXPECT_EQ(outcome.kind, SubmitOutcome::closed);
  EXPECT_EQ(outcome.message, "restarting");
  EXPECT_TRUE(registry.only_logged("a"));
}

TEST(LoggedIdentity, ASourceDigestIsKeptAsBytesAndAnUnreadableOneNeverMatches) {
  Sha256Digest digest{};
  const std::string hex = sha256_hex("x");
  ASSERT_TRUE(parse_sha256_hex(hex, &digest));
  EXPECT_EQ(digest[0], static_cast<unsigned char>(std::stoi(hex.substr(0, 2), nullptr, 16)));
  EXPECT_FALSE(parse_sha256_hex(hex.substr(1), &digest));
  EXPECT_FALSE(parse_sha256_hex(std::string(64, 'g'), &digest));

  RewardRow row = logged_row("b", "c0", 1);
  row.source_sha256 = "not a digest";
  const LoggedMatch match = match_logged_rows(batch_of("b", {"c0"}), {row});
  EXPECT_EQ(match.mismatch, "candidate \"c0\" was logged with other code");
  row.source_sha256.clear();  // a row without code: id, problem and stage decide
  EXPECT_EQ(match_logged_rows(batch_of("b", {"c0"}), {row}).matched, 1u);
}

}  // namespace
}  // namespace hpcreward
