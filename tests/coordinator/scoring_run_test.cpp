#include "coordinator/scoring/scoring_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "fake_transport.hpp"

namespace hpcreward {
namespace {

using test_support::FakeTransport;
using test_support::VectorSink;

// o0 advances after 2 of 2 ok, o3 at 3 GFLOPS, openmp and avx512 after one candidate.
constexpr const char *kTestLadder = R"({
  "ladder": ["o0", "o3", "openmp", "avx512", "blocking"],
  "avx512_unsupported": "skip",
  "archive_shaping": {"enabled": false, "new_niche_bonus": 5, "new_elite_bonus": 2},
  "stages": [
    {"name": "o0", "flags": ["-O0"], "allows": [], "requires": [],
     "advance": [{"type": "success_rate", "threshold": 1.0, "window": 2}]},
    {"name": "o3", "flags": ["-O3"], "allows": [], "requires": [],
     "advance": [{"type": "best_gflops", "threshold": 3.0}]},
    {"name": "openmp", "flags": ["-O3", "-fopenmp"], "allows": ["openmp"], "requires": ["openmp"],
     "advance": [{"type": "max_candidates", "window": 1}]},
    {"name": "avx512", "flags": ["-O3", "-fopenmp", "-mavx512f"], "allows": ["openmp", "avx512"],
     "requires": ["avx512"], "advance": [{"type": "max_candidates", "window": 1}]},
    {"name": "blocking", "flags": ["-O3"], "allows": ["blocking"], "requires": ["blocking"], "advance": []},
    {"name": "open", "flags": ["-O3", "-march=native", "-fopenmp"],
     "allows": ["openmp", "avx512", "blocking"], "requires": [], "advance": []}
  ]
})";

const LadderConfig &test_ladder() {
  static const LadderConfig config = parse_ladder_config(kTestLadder, "test ladder");
  return config;
}

PreparedCandidate ready(std::string id, std::string batch = "b1", std::string stage = "",
                        std::string problem = "dgemm-256") {
  PreparedCandidate candidate;
  candidate.id = id;
  candidate.batch_id = batch;
  candidate.problem = problem;
  candidate.stage = stage;
  candidate.stage_named = !stage.empty();
  candidate.code = "void matmul(){} /* " + id + " */";
  return candidate;
}

PreparedCandidate rejected(std::string id, std::string batch = "b1") {
  PreparedCandidate candidate = ready(id, batch);
  candidate.code.clear();
  candidate.verdict = {Status::format_error, "no code"};
  return candidate;
}

// One run: its transport, sink, state and the rows it wrote.
struct Harness {
  explicit Harness(bool avx512 = true, const LadderConfig &config = test_ladder()) : sqd(config, avx512) {}
  std::vector<RewardRow> score(std::vector<PreparedCandidate> candidates,
                               const std::vector<RewardRow> &already_logged = {}) {
    ScoringContext context{{1, 2}, "head", 42, {}};
    ScoringRun run(transport, sink, rewards, sqd, context);
    return test_support::rows_written_by(sink, [&] { run.score(std::move(candidates), already_logged); });
  }
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  SqdState sqd;
};

std::map<std::string, RewardRow> by_id(const std::vector<RewardRow> &rows) {
  std::map<std::string, RewardRow> out;
  for (const RewardRow &row : rows) out[row.candidate_id] = row;
  return out;
}

TEST(ScoringRun, EveryCandidateGetsExactlyOneRow) {
  Harness h;
  auto rows = h.score({ready("a"), rejected("r1"), ready("bad1"), ready("b", "b1", "open"), ready("c")});
  ASSERT_EQ(rows.size(), 5u);
  ASSERT_EQ(h.sink.rows.size(), 5u);
  auto rows_by_id = by_id(rows);
  ASSERT_EQ(rows_by_id.size(), 5u);
  EXPECT_EQ(rows_by_id["r1"].status, "format_error");
  EXPECT_EQ(rows_by_id["r1"].reward, -10);
  EXPECT_EQ(rows_by_id["r1"].rank, 0);
  EXPECT_EQ(rows_by_id["r1"].host, "head");
  EXPECT_EQ(rows_by_id["r1"].source_sha256, "");
  EXPECT_EQ(rows_by_id["r1"].stage, "o0") << "a decided row still says which stage it was in";
  EXPECT_EQ(rows_by_id["bad1"].status, "wrong_answer");
  EXPECT_EQ(rows_by_id["bad1"].reward, -10);
  EXPECT_EQ(rows_by_id["a"].status, "ok");
  EXPECT_EQ(rows_by_id["a"].reward, 3.5);
  EXPECT_EQ(rows_by_id["a"].source_sha256.size(), 64u);
  EXPECT_EQ(rows_by_id["a"].host, "node" + std::to_string(rows_by_id["a"].rank));
  EXPECT_EQ(rows_by_id["a"].techniques, "plain");
  EXPECT_EQ(rows_by_id["a"].loop_order, "ikj");
  EXPECT_EQ(h.transport.sent.size(), 4u) << "format errors are never benchmarked";
}

TEST(ScoringRun, TasksCarryTheStageRulesProblemAndSeed) {
  Harness h;
  h.score({ready("a"), ready("b", "b1", "openmp")});
  ASSERT_EQ(h.transport.sent.size(), 2u);
  EXPECT_EQ(h.transport.sent[0].stage, "o0");
  EXPECT_EQ(h.transport.sent[0].compiler_flags, std::vector<std::string>{"-O0"});
  EXPECT_TRUE(h.transport.sent[0].techniques_allowed.empty());
  EXPECT_EQ(h.transport.sent[1].stage, "openmp");
  EXPECT_EQ(h.transport.sent[1].techniques_required, std::vector<std::string>{"openmp"});
  EXPECT_EQ(h.transport.sent[1].problem.nominal, (Shape{256, 256, 256}));
  EXPECT_EQ(h.transport.sent[0].seed, candidate_seed(42, 0));
  EXPECT_NE(h.transport.sent[0].seed, h.transport.sent[1].seed);
  EXPECT_EQ(h.sink.rows[0].seed, h.transport.sent[0].seed);
}

TEST(ScoringRun, ProblemsAdvanceBetweenBatchesNeverWithinOne) {
  Harness h;
  // b1: four ok candidates; the o0 rule (2 of 2 ok) is met after two, but b1 stays in o0.
  auto rows = h.score({ready("a1"), ready("a2"), ready("a3"), ready("a4"), ready("b1x", "b2"),
                       ready("c-omp", "b3"), ready("d", "b4")});
  auto rows_by_id = by_id(rows);
  for (const char *id : {"a1", "a2", "a3", "a4"}) EXPECT_EQ(rows_by_id[id].stage, "o0") << id;
  EXPECT_EQ(rows_by_id["b1x"].stage, "o3");
  EXPECT_EQ(rows_by_id["c-omp"].stage, "openmp");
  EXPECT_EQ(rows_by_id["d"].stage, "avx512");
  ASSERT_EQ(h.sink.events.size(), 4u);
  EXPECT_EQ(h.sink.events[0].from, "o0");
  EXPECT_EQ(h.sink.events[0].to, "o3");
  EXPECT_EQ(h.sink.events[0].rule, "success_rate");
  EXPECT_EQ(h.sink.events[0].rows_before, 4u);
  EXPECT_EQ(h.sink.events[1].rule, "best_gflops");
  EXPECT_EQ(h.sink.events[1].rows_before, 5u);
  EXPECT_EQ(h.sink.events[3].to, "blocking") << "the last batch's advance is logged at the end";
  EXPECT_EQ(h.sqd.current_stage("dgemm-256"), "blocking");
}

// tests/adversarial relies on this: a batch starts only when the previous one is done, with
// every rank idle, so a batch of as many candidates as ranks gives each rank one, however
// unevenly the previous batch was spread.
TEST(ScoringRun, ABatchOfOnePerRankReachesEveryRankAfterAnUnevenBatch) {
  Harness h;
  h.transport.answer_after_s[1] = 100;  // rank 1 holds its first task; rank 2 takes the rest
  std::vector<PreparedCandidate> candidates;
  for (int i = 0; i < 6; ++i) candidates.push_back(ready("first-" + std::to_string(i), "uneven", "o3"));
  candidates.push_back(ready("last-0", "last", "o3"));
  candidates.push_back(ready("last-1", "last", "o3"));
  h.score(std::move(candidates));
  ASSERT_EQ(h.transport.sent.size(), 8u);
  EXPECT_EQ(std::count(h.transport.sent_to.begin(), h.transport.sent_to.begin() + 6, 1), 1)
      << "the uneven batch: rank 1 got one task";
  EXPECT_EQ(h.transport.sent[6].candidate_id, "last-0");
  EXPECT_EQ(h.transport.sent[7].candidate_id, "last-1");
  EXPECT_EQ(std::set<int>(h.transport.sent_to.begin() + 6, h.transport.sent_to.end()), (std::set<int>{1, 2}));
}

TEST(ScoringRun, EachProblemHasItsOwnStage) {
  Harness h;
  auto rows = h.score({ready("a1"), ready("a2"), ready("d3", "b2"), ready("s1", "b2", "", "sgemm-256")});
  auto rows_by_id = by_id(rows);
  EXPECT_EQ(rows_by_id["d3"].stage, "o3");
  EXPECT_EQ(rows_by_id["s1"].stage, "o0");
}

TEST(ScoringRun, StagesTheHostCannotRunAreSkippedAndRefusedByName) {
  Harness h(/*avx512=*/false);
  auto rows = h.score({ready("a1"), ready("a2"), ready("b", "b2"), ready("c-omp", "b3"),
                       ready("d", "b4"), ready("named", "b4", "avx512")});
  auto rows_by_id = by_id(rows);
  EXPECT_EQ(rows_by_id["d"].stage, "blocking");
  EXPECT_EQ(rows_by_id["named"].status, "constraint_violation");
  EXPECT_NE(rows_by_id["named"].reason.find("requires avx512"), std::string::npos) << rows_by_id["named"].reason;
  bool skipped = false;
  for (const StageEventRecord &event : h.sink.events)
    if (event.rule == "unsupported_stage" && event.from == "avx512" && event.to == "blocking") skipped = true;
  EXPECT_TRUE(skipped);
}

TEST(ScoringRun, ArchiveKeepsOneElitePerNiche) {
  Harness h;
  h.transport.gflops = {{"slow", 2.0}, {"fast", 5.0}, {"slower", 1.0}, {"x-omp", 1.0}};
  auto rows = h.score({ready("slow", "b1", "open"), ready("fast", "b2", "open"), ready("slower", "b3", "open"),
                       ready("x-omp", "b4", "open")});
  auto rows_by_id = by_id(rows);
  EXPECT_EQ(rows_by_id["slow"].archive, "new_niche");
  EXPECT_EQ(rows_by_id["fast"].archive, "new_elite");
  EXPECT_EQ(rows_by_id["slower"].archive, "");
  EXPECT_EQ(rows_by_id["x-omp"].archive, "new_niche");
  ASSERT_EQ(h.sink.archive.size(), 3u);
  EXPECT_EQ(h.sink.archive[1].previous_candidate_id, "slow");
  EXPECT_EQ(h.sink.archive[1].row_index, 1u);
  EXPECT_EQ(h.sink.archive[2].niche, "openmp|ikj|-");
  EXPECT_EQ(h.sqd.archive().niches("dgemm-256", "open").size(), 2u);
  EXPECT_EQ(rows_by_id["fast"].reward, 5.0) << "shaping is off by default";
}

TEST(ScoringRun, ShapingAddsItsBonusWhenOn) {
  LadderConfig config = test_ladder();
  config.shaping.enabled = true;
  Harness h(true, config);
  h.transport.gflops = {{"slow", 2.0}, {"fast", 5.0}};
  auto rows = by_id(h.score({ready("slow", "b1", "open"), ready("fast", "b2", "open")}));
  EXPECT_EQ(rows["slow"].reward, 2.0 + 5);
  EXPECT_EQ(rows["fast"].reward, 5.0 + 2);
  EXPECT_EQ(rows["fast"].gflops, 5.0) << "the measurement itself stays raw";
}

TEST(ScoringRun, DuplicateIdsAreFormatErrors) {
  Harness h;
  auto rows = h.score({ready("a"), ready("a")});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].status, "format_error");
  EXPECT_NE(rows[0].reason.find("duplicate id"), std::string::npos);
  EXPECT_EQ(rows[1].status, "ok");
}

TEST(ScoringRun, SourcesGoToTheSinkWithTheirRows) {
  Harness h;
  h.score({ready("a")});
  ASSERT_EQ(h.sink.sources.size(), 1u);
  EXPECT_EQ(h.sink.sources[0], "void matmul(){} /* a */");
}

std::vector<PreparedCandidate> three_batches() {
  return {ready("a1"), ready("a2"), ready("b1", "b2"), ready("b2", "b2"), ready("b3", "b2"),
          ready("c-omp", "b3")};
}

// A run that stops after `rows_kept` rows (and the events and archive records logged
// before the next row), then resumes with the same input on a state rebuilt from that log.
void expect_resume_matches_an_unbroken_run(std::size_t rows_kept, std::size_t events_kept) {
  Harness unbroken;
  unbroken.score(three_batches());

  VectorSink &log = unbroken.sink;
  std::vector<RewardRow> kept_rows(log.rows.begin(), log.rows.begin() + static_cast<long>(rows_kept));
  std::vector<StageEventRecord> kept_events(log.events.begin(), log.events.begin() + static_cast<long>(events_kept));
  std::vector<ArchiveRecord> kept_archive;
  for (const ArchiveRecord &record : log.archive)
    if (record.row_index < rows_kept) kept_archive.push_back(record);
  if (!kept_archive.empty()) kept_archive.pop_back();  // the crash also lost the last record

  std::vector<ArchiveRecord> missing;
  SqdState rebuilt = SqdState::rebuild(test_ladder(), true, kept_rows, kept_events, kept_archive,
                                       [](const RewardRow &) { return std::optional<double>(); }, missing);
  EXPECT_EQ(kept_archive.size() + missing.size(),
            std::count_if(log.archive.begin(), log.archive.end(),
                          [&](const ArchiveRecord &r) { return r.row_index < rows_kept; }));
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  ScoringRun run(transport, sink, rewards, rebuilt, {{1, 2}, "head", 42, {}});
  auto rows = test_support::rows_written_by(sink, [&] { run.score(three_batches(), kept_rows); });

  ASSERT_EQ(kept_rows.size() + rows.size(), log.rows.size()) << "no candidate lost or scored twice";
  auto unbroken_rows = by_id(log.rows);
  for (const RewardRow &row : rows) {
    EXPECT_EQ(row.stage, unbroken_rows[row.candidate_id].stage) << row.candidate_id;
    EXPECT_EQ(row.seed, unbroken_rows[row.candidate_id].seed) << row.candidate_id;
  }
  EXPECT_EQ(kept_events.size() + sink.events.size(), log.events.size());
  EXPECT_EQ(rebuilt.stages(), unbroken.sqd.stages());
}

TEST(ScoringRun, ResumeInTheMiddleOfABatchKeepsItsStage) {
  // 3 rows: b1 done, the o0 -> o3 event logged, one row of b2 (stage o3) kept.
  expect_resume_matches_an_unbroken_run(3, 1);
}

TEST(ScoringRun, ResumeBetweenABatchAndItsEventLogsTheEvent) {
  // b1 done, but the crash came before the o0 -> o3 event was logged.
  expect_resume_matches_an_unbroken_run(2, 0);
}

TEST(ScoringRun, ResumeOfAFinishedRunScoresNothing) {
  Harness unbroken;
  unbroken.score(three_batches());
  std::vector<ArchiveRecord> missing;
  SqdState rebuilt = SqdState::rebuild(test_ladder(), true, unbroken.sink.rows, unbroken.sink.events,
                                       unbroken.sink.archive,
                                       [](const RewardRow &) { return std::optional<double>(); }, missing);
  EXPECT_TRUE(missing.empty());
  EXPECT_EQ(rebuilt.archive(), unbroken.sqd.archive());
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  ScoringRun run(transport, sink, rewards, rebuilt, {{1}, "head", 42, {}});
  EXPECT_EQ(run.score(three_batches(), unbroken.sink.rows), 0u);
  EXPECT_TRUE(sink.rows.empty());
  EXPECT_TRUE(transport.sent.empty());
  EXPECT_TRUE(sink.events.empty());
}

TEST(ScoringRun, ServeModeScoresBatchesAsTheyArriveInTheirOrder) {
  Harness h;
  ScoringRun run(h.transport, h.sink, h.rewards, h.sqd, {{1, 2}, "head", 42, {}});
  auto first = run.score_one_batch({ready("bad", "b1"), rejected("r", "b1"), ready("x", "b1"), ready("y", "b1")});
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0].status, "wrong_answer");
  EXPECT_EQ(first[1].status, "format_error");
  EXPECT_EQ(first[2].candidate_id, "x");
  EXPECT_EQ(first[3].candidate_id, "y");
  // Ids repeat across batches in serve mode; inputs do not.
  auto second = run.score_one_batch({ready("x", "b2"), ready("y", "b2")});
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].status, "ok");
  EXPECT_EQ(second[0].stage, "o3") << "b1 ended with x and y ok: 2 of the last 2";
  EXPECT_NE(second[0].seed, first[2].seed);
  EXPECT_EQ(run.rows_in_log(), 6u);
}

TEST(ScoringRun, ServeModeRetryAfterARestartScoresOnlyWhatIsMissing) {
  Harness h;
  ScoringRun run(h.transport, h.sink, h.rewards, h.sqd, {{1}, "head", 42, {}});
  run.continue_log(10);
  RewardRow logged;
  logged.candidate_id = "a";
  logged.batch_id = "b7";
  logged.problem = "dgemm-256";
  logged.stage = "o0";
  logged.status = "ok";
  auto rows = run.score_one_batch({ready("a", "b7"), ready("b", "b7")}, {logged});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].candidate_id, "a");
  EXPECT_EQ(rows[1].candidate_id, "b");
  EXPECT_EQ(rows[1].stage, "o0") << "a batch cut short keeps its stage";
  EXPECT_EQ(h.transport.sent.size(), 1u);
  EXPECT_EQ(h.transport.sent[0].seed, candidate_seed(42, 10 + 1));
  EXPECT_EQ(run.rows_in_log(), 11u);
}

TEST(CandidateSeed, IsDeterministicAndSpread) {
  EXPECT_EQ(candidate_seed(7, 3), candidate_seed(7, 3));
  EXPECT_NE(candidate_seed(7, 3), candidate_seed(7, 4));
  EXPECT_NE(candidate_seed(7, 3), candidate_seed(8, 3));
}

}  // namespace
}  // namespace hpcreward
