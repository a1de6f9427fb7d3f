// Identical candidates: measured once, in a batch and across batches, each row
// saying whose measurement it reuses; identical rewards; nothing counted twice; a resume
// rebuilds the cache from the log.
#include <gtest/gtest.h>

#include <map>

#include "coordinator/scoring/scoring_run.hpp"
#include "prompts/model_feedback.hpp"
#include "fake_transport.hpp"

namespace hpcreward {
namespace {

using test_support::FakeTransport;
using test_support::VectorSink;

constexpr const char *kLadder = R"({
  "ladder": ["o3", "blocking"],
  "archive_shaping": {"enabled": false, "new_niche_bonus": 5, "new_elite_bonus": 2},
  "stages": [
    {"name": "o3", "flags": ["-O3"], "allows": [], "requires": [], "advance": []},
    {"name": "blocking", "flags": ["-O3"], "allows": ["blocking"], "requires": ["blocking"], "advance": []},
    {"name": "open", "flags": ["-O3", "-fopenmp"], "allows": ["openmp"], "requires": [], "advance": []}
  ]
})";

LadderConfig ladder(std::string flag = "-O3", bool shaping = false) {
  std::string text = kLadder;
  text.replace(text.find("\"-O3\""), 5, '"' + flag + '"');  // the o3 stage's flag
  LadderConfig config = parse_ladder_config(text, "repeat test ladder");
  config.shaping.enabled = shaping;
  return config;
}

// A candidate whose code is `code`: candidates with the same code tag are identical.
PreparedCandidate candidate(std::string id, std::string code, std::string batch = "b1", std::string stage = "") {
  PreparedCandidate c;
  c.id = std::move(id);
  c.batch_id = std::move(batch);
  c.problem = "dgemm-256";
  c.stage = stage;
  c.stage_named = !stage.empty();
  c.code = "void matmul(){} /* " + code + " */";
  return c;
}

// Gives chosen candidates (by id) another status than the fake's, e.g. a timeout.
class StatusOverride : public BenchTransport {
 public:
  explicit StatusOverride(FakeTransport &inner) : inner_(inner) {}
  void send_task(int rank, const BenchTask &task) override {
    ids_[task.sequence] = task.candidate_id;
    inner_.send_task(rank, task);
  }
  std::optional<BenchResult> receive_result(std::chrono::milliseconds timeout) override {
    std::optional<BenchResult> result = inner_.receive_result(timeout);
    if (result)
      if (auto it = status.find(ids_[result->sequence]); it != status.end()) {
        result->measurement.status = it->second;
        result->measurement.gflops = 0;
        auto given = reason.find(ids_[result->sequence]);
        result->measurement.reason = given != reason.end() ? given->second : "made up by the test";
      }
    return result;
  }
  std::map<std::string, Status> status;
  std::map<std::string, std::string> reason;  // for ids in `status`; default "made up by the test"

 private:
  FakeTransport &inner_;
  std::map<std::int64_t, std::string> ids_;
};

struct Harness {
  explicit Harness(LadderConfig ladder_config = ladder(), std::size_t entries = kDefaultRepeatCacheEntries)
      : config(std::move(ladder_config)), sqd(config, true), overriding(transport) {
    context.ranks = {1, 2};
    context.host = "head";
    context.seed = 42;
    context.repeat_cache_entries = entries;
  }
  ScoringRun &run() {
    if (!scoring) scoring = std::make_unique<ScoringRun>(overriding, sink, rewards, sqd, context);
    return *scoring;
  }
  std::vector<std::string> sent_ids() const {
    std::vector<std::string> ids;
    for (const BenchTask &task : transport.sent) ids.push_back(task.candidate_id);
    return ids;
  }
  LadderConfig config;
  SqdState sqd;
  FakeTransport transport;
  StatusOverride overriding;
  VectorSink sink;
  RewardTable rewards;
  ScoringContext context;
  std::unique_ptr<ScoringRun> scoring;
};

std::map<std::string, RewardRow> by_id(const std::vector<RewardRow> &rows) {
  std::map<std::string, RewardRow> out;
  for (const RewardRow &row : rows) out[row.candidate_id] = row;
  return out;
}

TEST(ScoringRunRepeat, IdenticalCandidatesOfABatchAreSentOnceAndShareTheReward) {
  Harness h;
  h.transport.gflops["a"] = 7.25;
  auto rows = test_support::rows_written_by(h.sink, [&] { h.run().score({candidate("a", "A"), candidate("x", "X"), candidate("a2", "A"), candidate("a3", "A")}); });
  EXPECT_EQ(h.sent_ids(), (std::vector<std::string>{"a", "x"}));
  ASSERT_EQ(rows.size(), 4u);
  ASSERT_EQ(h.sink.rows.size(), 4u) << "every candidate still has its row";
  auto row = by_id(rows);
  EXPECT_TRUE(row["a"].measured_as.empty());
  EXPECT_EQ(row["a"].measurement_key.size(), 64u);
  for (const char *id : {"a2", "a3"}) {
    EXPECT_EQ(row[id].measured_as, "a") << id;
    EXPECT_EQ(row[id].measured_batch, "b1") << id;
    EXPECT_EQ(row[id].measurement_key, row["a"].measurement_key) << id;
    EXPECT_EQ(row[id].reward, row["a"].reward) << id;
    EXPECT_EQ(row[id].reward, 7.25) << id;
    EXPECT_EQ(row[id].gflops, row["a"].gflops) << id;
    EXPECT_EQ(row[id].seed, row["a"].seed) << id << ": the inputs it was measured on";
    EXPECT_EQ(row[id].rank, row["a"].rank) << id;
    EXPECT_EQ(row[id].source_sha256, row["a"].source_sha256) << id;
    EXPECT_EQ(row[id].techniques, "plain") << id;
    EXPECT_TRUE(row[id].archive.empty()) << id << ": the archive saw this measurement once";
  }
  EXPECT_NE(row["x"].measurement_key, row["a"].measurement_key);
  EXPECT_TRUE(row["x"].measured_as.empty());
  ASSERT_EQ(h.sink.archive.size(), 1u) << "one niche, opened once";
  EXPECT_EQ(h.sink.archive[0].candidate_id, "a");
}

TEST(ScoringRunRepeat, TheShapingBonusOfTheBatchsMeasurementIsShared) {
  Harness h(ladder("-O3", /*shaping=*/true));
  h.transport.gflops["a"] = 4;
  auto rows = by_id(test_support::rows_written_by(h.sink, [&] { h.run().score({candidate("a", "A"), candidate("a2", "A"), candidate("later", "A", "b2")}); }));
  EXPECT_EQ(rows["a"].archive, "new_niche");
  EXPECT_EQ(rows["a"].reward, 4 + 5);
  EXPECT_EQ(rows["a2"].reward, rows["a"].reward) << "a GRPO group of identical completions: identical rewards";
  EXPECT_EQ(rows["later"].measured_as, "a");
  EXPECT_EQ(rows["later"].reward, 4) << "a later batch earns no novelty bonus: the archive already holds it";
}

TEST(ScoringRunRepeat, LaterBatchesAreAnsweredWithoutSending) {
  Harness h;
  h.transport.gflops["a"] = 6;
  auto rows = by_id(test_support::rows_written_by(h.sink, [&] { h.run().score({candidate("a", "A"), candidate("bad", "B"), candidate("c", "A", "b2"),
                                   candidate("d", "B", "b3"), candidate("e", "E", "b3")}); }));
  EXPECT_EQ(h.sent_ids(), (std::vector<std::string>{"a", "bad", "e"}));
  EXPECT_EQ(rows["c"].measured_as, "a");
  EXPECT_EQ(rows["c"].measured_batch, "b1");
  EXPECT_EQ(rows["c"].batch_id, "b2");
  EXPECT_EQ(rows["c"].reward, 6);
  EXPECT_EQ(rows["d"].status, "wrong_answer") << "a wrong answer is the code's own doing: reused";
  EXPECT_EQ(rows["d"].reason, "mismatch");
  EXPECT_EQ(rows["d"].reward, -10);
  EXPECT_EQ(rows["d"].measured_as, "bad");
  EXPECT_EQ(h.sink.rows.size(), 5u);
}

TEST(ScoringRunRepeat, AnotherStageOrProblemIsAnotherMeasurement) {
  Harness h;
  PreparedCandidate sgemm = candidate("s", "A");
  sgemm.problem = "sgemm-256";
  auto rows = by_id(test_support::rows_written_by(h.sink, [&] { h.run().score({candidate("a", "A"), candidate("o", "A", "b1", "open"), sgemm,
                                   candidate("again", "A", "b2", "open")}); }));
  EXPECT_EQ(h.sent_ids(), (std::vector<std::string>{"a", "o", "s"}));
  EXPECT_EQ(rows["again"].measured_as, "o");
  EXPECT_TRUE(rows["s"].measured_as.empty());
}

TEST(ScoringRunRepeat, TimeoutsAndRuntimeErrorsAreSharedInTheBatchButMeasuredAgainLater) {
  Harness h;
  h.overriding.status["slow"] = Status::timeout;
  h.overriding.status["crash"] = Status::runtime_error;
  auto rows = by_id(test_support::rows_written_by(h.sink, [&] { h.run().score({candidate("slow", "S"), candidate("slow2", "S"), candidate("crash", "C"),
                                   candidate("slow3", "S", "b2"), candidate("crash2", "C", "b2")}); }));
  EXPECT_EQ(h.sent_ids(), (std::vector<std::string>{"slow", "crash", "slow3", "crash2"}));
  EXPECT_EQ(rows["slow2"].status, "timeout");
  EXPECT_EQ(rows["slow2"].measured_as, "slow");
  EXPECT_EQ(rows["slow2"].reward, rows["slow"].reward);
  EXPECT_TRUE(rows["slow3"].measured_as.empty()) << "a timeout may be the node's doing";
  EXPECT_EQ(rows["slow3"].status, "ok");
  EXPECT_TRUE(rows["crash2"].measured_as.empty());
}

TEST(ScoringRunRepeat, ZeroEntriesMeasuresEveryCandidate) {
  Harness h(ladder(), 0);
  auto rows = by_id(test_support::rows_written_by(h.sink, [&] { h.run().score({candidate("a", "A"), candidate("a2", "A"), candidate("a3", "A", "b2")}); }));
  EXPECT_EQ(h.sent_ids(), (std::vector<std::string>{"a", "a2", "a3"}));
  for (const char *id : {"a", "a2", "a3"}) {
    EXPECT_TRUE(rows[id].measured_as.empty()) << id;
    EXPECT_EQ(rows[id].measurement_key, rows["a"].measurement_key) << id << ": the key is logged anyway";
  }
}

TEST(ScoringRunRepeat, AnEvictedMeasurementIsMeasuredAgain) {
  Harness h(ladder(), 1);
  auto rows = by_id(test_support::rows_written_by(h.sink, [&] { h.run().score({candidate("x", "X"), candidate("y", "Y", "b2"), candidate("x2", "X", "b3"),
                                   candidate("x3", "X", "b4")}); }));
  EXPECT_EQ(h.sent_ids(), (std::vector<std::string>{"x", "y", "x2"}));
  EXPECT_EQ(rows["x3"].measured_as, "x2");
}

TEST(ScoringRunRepeat, AResumeRebuildsTheCacheFromTheLog) {
  Harness before;
  before.transport.gflops["a"] = 8;
  before.run().score({candidate("a", "A"), candidate("a2", "A")});
  const std::vector<RewardRow> logged = before.sink.rows;

  Harness after;  // a new coordinator: nothing in memory but the log
  auto rows = by_id(test_support::rows_written_by(after.sink, [&] { after.run().score({candidate("a", "A"), candidate("a2", "A"), candidate("c", "A", "b2")}, logged); }));
  EXPECT_TRUE(after.sent_ids().empty()) << "logged rows are not scored again, and c reuses a's measurement";
  ASSERT_EQ(after.sink.rows.size(), 1u);
  EXPECT_EQ(rows["c"].measured_as, "a");
  EXPECT_EQ(rows["c"].reward, 8);
  EXPECT_EQ(rows["c"].seed, logged[0].seed);

  // Serve mode after a restart: continue_log with the rows does the same.
  Harness served;
  served.run().continue_log(logged);
  auto batch = served.run().score_one_batch({candidate("q0", "A", "step-9")});
  EXPECT_TRUE(served.sent_ids().empty());
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].measured_as, "a");
  EXPECT_EQ(batch[0].measured_batch, "b1");
  EXPECT_EQ(batch[0].reward, 8);
}

// A compiler's errors as a rank reports them, longer than the log's 256-byte reason column.
std::string long_compile_error() {
  std::string reason = "compiler failed (exit 1): cand.c:3:45: error: expected ';' before '}' token";
  for (int line = 4; line < 9; ++line)
    reason += "; cand.c:" + std::to_string(line) + ":9: error: 'tile' undeclared (first use in this function)";
  return reason + "; the last words";
}

TEST(ScoringRunRepeat, AReusedMeasurementCarriesItsWholeFeedbackWithItsOwnNote) {
  Harness h;
  h.overriding.status["a"] = Status::compile_error;
  h.overriding.reason["a"] = long_compile_error();
  ASSERT_GT(long_compile_error().size(), 256u);
  PreparedCandidate later = candidate("a2", "A", "b2");
  later.judged = "block 2 of 2 (```c, lines 5-40), the one that defines matmul";
  auto rows = by_id(test_support::rows_written_by(h.sink, [&] { h.run().score({candidate("a", "A"), later}); }));
  ASSERT_EQ(rows["a2"].measured_as, "a");
  EXPECT_TRUE(rows["a"].feedback.find("the last words") != std::string::npos) << rows["a"].feedback;
  // What a fresh measurement of a2 would say: its own note, then the measurement's feedback
  // (within the feedback's 512 bytes), made from the whole reason, not the log's 256 bytes.
  EXPECT_EQ(rows["a2"].feedback, prompts::with_judged_part(later.judged, rows["a"].feedback));
  EXPECT_TRUE(rows["a2"].feedback.find("the last words") != std::string::npos) << rows["a2"].feedback;

  // After a restart the cache has only the log: a reason cut to its column, the feedback whole.
  std::vector<RewardRow> logged = h.sink.rows;
  for (RewardRow &row : logged) row.reason.resize(std::min<std::size_t>(row.reason.size(), 256));
  Harness after;
  after.run().continue_log(logged);
  PreparedCandidate again = candidate("q0", "A", "step-9");
  again.judged = "the whole answer as code (no fenced block, lines 1-9)";
  auto batch = after.run().score_one_batch({again});
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].measured_as, "a");
  EXPECT_EQ(batch[0].feedback, prompts::with_judged_part(again.judged, rows["a"].feedback))
      << "the note of a2's answer is a2's, not the measurement's";
}

TEST(ScoringRunRepeat, AResumeWithOtherStageFlagsMeasuresAgain) {
  Harness before;
  before.run().score({candidate("a", "A", "b1", "o3")});
  Harness after(ladder("-O2"));
  auto rows = by_id(test_support::rows_written_by(after.sink, [&] { after.run().score({candidate("a", "A", "b1", "o3"), candidate("c", "A", "b2", "o3")},
                                      before.sink.rows); }));
  EXPECT_EQ(after.sent_ids(), std::vector<std::string>{"c"});
  EXPECT_TRUE(rows["c"].measured_as.empty());
  EXPECT_EQ(after.transport.sent[0].compiler_flags, std::vector<std::string>{"-O2"});
}

TEST(ScoringRunRepeat, ServedBatchesWithRepeatedIdsReuseAcrossRequests) {
  Harness h;
  auto first = h.run().score_one_batch({candidate("q0", "A", "step-1"), candidate("q1", "A", "step-1")});
  auto second = h.run().score_one_batch({candidate("q0", "A", "step-2")});
  EXPECT_EQ(h.sent_ids(), std::vector<std::string>{"q0"});
  EXPECT_EQ(first[1].measured_as, "q0");
  EXPECT_EQ(second[0].measured_as, "q0");
  EXPECT_EQ(second[0].measured_batch, "step-1") << "ids repeat across served batches: the batch names the row";
  EXPECT_EQ(second[0].batch_id, "step-2");
}

TEST(ScoringRunRepeat, ARebuiltArchiveIgnoresReusedRows) {
  Harness h;
  h.transport.gflops["a"] = 3;
  h.run().score({candidate("a", "A"), candidate("a2", "A")});
  std::vector<RewardRow> rows = h.sink.rows;
  rows[1].gflops = 99;  // were a reused row offered to the archive, it would become the elite
  std::vector<ArchiveRecord> missing;
  SqdState rebuilt = SqdState::rebuild(h.config, true, rows, h.sink.events, h.sink.archive,
                                       [](const RewardRow &) { return std::nullopt; }, missing);
  EXPECT_TRUE(missing.empty());
  const QdArchive::Niches &niches = rebuilt.archive().niches("dgemm-256", "o3");
  ASSERT_EQ(niches.size(), 1u);
  EXPECT_EQ(niches.begin()->second.gflops, 3);
  EXPECT_EQ(niches.begin()->second.candidate_id, "a");
}

}  // namespace
}  // namespace hpcreward
