// What every row of a scoring run goes through (row_writer.hpp): its reward, the archive and
// its bonus for measured rows only, the sink, the stage statistics and the progress count.
#include "coordinator/scoring/row_writer.hpp"

#include <gtest/gtest.h>

#include "fake_transport.hpp"

namespace hpcreward {
namespace {

using test_support::VectorSink;

constexpr const char *kLadder = R"({
  "ladder": ["open"],
  "archive_shaping": {"enabled": true, "new_niche_bonus": 5, "new_elite_bonus": 2},
  "stages": [{"name": "open", "flags": ["-O3", "-fopenmp"], "allows": ["openmp"], "requires": [], "advance": []}]
})";

struct Progress : ScoringObserver {
  void row_written(const RewardRow &row, std::size_t done, std::size_t total) override {
    seen.push_back(row.candidate_id + " " + std::to_string(done) + "/" + std::to_string(total));
  }
  std::vector<std::string> seen;
};

struct Harness {
  Harness() : config(parse_ladder_config(kLadder, "row writer test")), sqd(config, true) {
    RankInfo gpu;
    gpu.rank = 2;
    gpu.kind = "gpu";
    ranks[2] = gpu;
  }
  LadderConfig config;
  SqdState sqd;
  VectorSink sink;
  RewardTable rewards;
  std::map<int, RankInfo> ranks;
  Progress progress;
  RowWriter writer{sink, rewards, sqd, ranks, &progress};
};

PreparedCandidate candidate(std::string id) {
  PreparedCandidate c;
  c.id = std::move(id);
  c.batch_id = "b1";
  c.problem = "dgemm-256";
  c.stage = "open";
  c.code = "void matmul(){}";
  return c;
}

BenchResult answer(int rank, double gflops) {
  BenchResult result;
  result.rank = rank;
  result.host = "node" + std::to_string(rank);
  result.measurement.status = Status::ok;
  result.measurement.gflops = gflops;
  result.measurement.techniques.detected = true;
  result.measurement.techniques.loop_order = "ikj";
  return result;
}

TEST(RowWriter, AMeasuredRowIsOfferedToTheArchiveAndEarnsItsBonus) {
  Harness h;
  const PreparedCandidate first = candidate("c0");
  const BenchResult result = answer(1, 3.0);
  RewardRow row = h.writer.measured_row(first, result, 77);
  EXPECT_EQ(row.device, "cpu") << "a rank without a hello is a CPU rank";
  EXPECT_EQ(row.seed, 77u);
  EXPECT_EQ(row.host, "node1");
  EXPECT_EQ(row.source_sha256.size(), 64u);
  double bonus = 0;
  const RewardRow written = h.writer.write(row, first, result.measurement, &bonus);
  EXPECT_EQ(written.archive, "new_niche");
  EXPECT_EQ(bonus, 5);
  EXPECT_EQ(written.reward, 3.0 + 5);
  ASSERT_EQ(h.sink.rows.size(), 1u);
  EXPECT_EQ(h.sink.sources[0], first.code);
  EXPECT_EQ(h.sink.archive.size(), 1u);
  EXPECT_EQ(h.writer.rows_in_log(), 1u);
}

TEST(RowWriter, AReusedRowNamesItsOriginAndIsNotOfferedToTheArchiveAgain) {
  Harness h;
  CachedMeasurement origin;
  origin.measurement = answer(2, 4.0).measurement;
  origin.candidate_id = "c0";
  origin.batch_id = "b0";
  origin.rank = 2;
  origin.host = "node2";
  origin.device = "H200";
  origin.seed = 9;
  const RewardRow row = h.writer.write_reused(candidate("c1"), "key", origin, 2);
  EXPECT_EQ(row.reward, 4.0 + 2) << "the measuring row's bonus, as given";
  EXPECT_EQ(row.archive, "");
  EXPECT_EQ(row.measured_as, "c0");
  EXPECT_EQ(row.measured_batch, "b0");
  EXPECT_EQ(row.measurement_key, "key");
  EXPECT_EQ(row.device, "H200");
  EXPECT_EQ(row.seed, 9u);
  EXPECT_TRUE(h.sink.archive.empty());
  EXPECT_EQ(h.sink.rows.size(), 1u);
}

TEST(RowWriter, TheFeedbackSaysWhichPartOfTheAnswerWasJudged) {
  Harness h;
  PreparedCandidate from_completion = candidate("c0");
  from_completion.judged = "block 2 of 3 (```c, lines 14-60), the one that defines matmul";
  const RewardRow row = h.writer.measured_row(from_completion, answer(1, 3.0), 0);
  EXPECT_EQ(row.feedback.rfind("Judged block 2 of 3 (```c, lines 14-60), the one that defines matmul. Correct at every "
                               "checked shape. 3 GFLOPS",
                               0),
            0u)
      << row.feedback;
  EXPECT_EQ(h.writer.measured_row(candidate("c1"), answer(1, 3.0), 0).feedback.rfind("Correct at every", 0), 0u)
      << "a plain source has no note";

  CachedMeasurement origin;
  origin.measurement = answer(1, 3.0).measurement;
  origin.feedback = "It did not compile: the whole text, kept as the measuring row had it.";
  EXPECT_EQ(h.writer.write_reused(from_completion, "key", origin, 0).feedback,
            "Judged " + from_completion.judged + ". " + origin.feedback)
      << "a reused measurement's feedback is the one kept with it, not made again";
}

TEST(RowWriter, ADecidedRowHasNoRankAndAGpuRowNamesItsKindWhenTheRankNamedNoDevice) {
  Harness h;
  PreparedCandidate bad = candidate("c0");
  bad.code.clear();
  const RewardRow decided = h.writer.decided_row(bad, failed_measurement(Status::format_error, "no code"), "head");
  EXPECT_EQ(decided.rank, 0);
  EXPECT_EQ(decided.host, "head");
  EXPECT_EQ(decided.device, "");
  EXPECT_EQ(decided.source_sha256, "");
  EXPECT_EQ(decided.reward, h.rewards.reward_for(failed_measurement(Status::format_error, "no code")));
  EXPECT_EQ(h.writer.measured_row(candidate("c1"), answer(2, 1.0), 0).device, "gpu");
}

TEST(RowWriter, EveryRowKeepsItsYardsticksAndItsRewardFollowsTheMode) {
  Harness h;
  h.rewards.set_mode(RewardMode::parse("fraction"));
  BenchResult result = answer(1, 30.0);
  result.measurement.yardsticks = {.openblas = 40};
  const RewardRow row = h.writer.measured_row(candidate("c0"), result, 0);
  EXPECT_EQ(row.openblas_gflops, 40);
  EXPECT_EQ(row.cublas_gflops, 0);
  EXPECT_EQ(row.reward, 0.75);
  EXPECT_EQ(row.reason, "");
  result.measurement.yardsticks = {};
  const RewardRow unmeasured = h.writer.measured_row(candidate("c1"), result, 0);
  EXPECT_EQ(unmeasured.reward, 0);
  EXPECT_NE(unmeasured.reason.find("no yardstick for this problem (reward mode fraction)"), std::string::npos)
      << unmeasured.reason;
  result.measurement = failed_measurement(Status::wrong_answer, "row 3 wrong");
  result.measurement.yardsticks = {.openblas = 40};
  const RewardRow wrong = h.writer.measured_row(candidate("c2"), result, 0);
  EXPECT_EQ(wrong.openblas_gflops, 40) << "whatever the status";
  EXPECT_EQ(wrong.reason, "row 3 wrong");
}

TEST(RowWriter, ShapingBonusesAreScaledInTheRatioModesAsThePenaltiesAre) {
  for (const char *mode : {"gflops", "fraction", "speedup:openblas"}) {
    Harness h;
    h.rewards.set_mode(RewardMode::parse(mode));
    const double scale = std::string(mode) == "gflops" ? 1.0 : RewardTable::kRatioPenaltyScale;
    EXPECT_EQ(h.rewards.shaping_scale(), scale) << mode;
    BenchResult result = answer(1, 30.0);
    result.measurement.yardsticks = {.openblas = 40};
    const PreparedCandidate first = candidate("c0");
    double bonus = 0;
    const RewardRow row = h.writer.write(h.writer.measured_row(first, result, 0), first, result.measurement, &bonus);
    EXPECT_EQ(row.archive, "new_niche") << mode;
    EXPECT_DOUBLE_EQ(bonus, 5 * scale) << mode;
    const double raw = std::string(mode) == "gflops" ? 30.0 : 0.75;
    EXPECT_DOUBLE_EQ(row.reward, raw + 5 * scale) << mode;
  }
}

TEST(RowWriter, ARepeatedSourceEarnsNoBonusEvenWhenItTimesFaster) {
  Harness h;
  const PreparedCandidate first = candidate("c0"), twin = candidate("c1");  // the same code
  double bonus = -1;
  h.writer.write(h.writer.measured_row(first, answer(1, 18.44), 0), first, answer(1, 18.44).measurement, &bonus);
  EXPECT_EQ(bonus, 5);
  const RewardRow again =
      h.writer.write(h.writer.measured_row(twin, answer(1, 30.0), 0), twin, answer(1, 30.0).measurement, &bonus);
  EXPECT_EQ(again.archive, "new_elite") << "the archive keeps the better timing";
  EXPECT_EQ(bonus, 0);
  EXPECT_EQ(again.reward, 30.0);
}

TEST(RowWriter, ProgressCountsRowsWrittenAndRowsAlreadyLogged) {
  Harness h;
  h.writer.expect(3);
  h.writer.skip(1);  // one was in the log before a resume
  const PreparedCandidate c1 = candidate("c1"), c2 = candidate("c2");
  h.writer.write(h.writer.measured_row(c1, answer(1, 1.0), 0), c1, answer(1, 1.0).measurement);
  h.writer.write(h.writer.measured_row(c2, answer(1, 1.0), 0), c2, answer(1, 1.0).measurement);
  EXPECT_EQ(h.progress.seen, (std::vector<std::string>{"c1 2/3", "c2 3/3"}));
  EXPECT_EQ(h.writer.rows_written(), 2u);
}

}  // namespace
}  // namespace hpcreward
