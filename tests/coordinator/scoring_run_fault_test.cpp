// ScoringRun when benchmark ranks fail without dying: a silent rank is quarantined
// and its task scored elsewhere, a late answer is discarded, no rank left is an error that
// keeps the rows, a stop drains within its grace and a resume scores exactly the rest. The
// fake transport's virtual clock makes deadlines of seconds pass at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "coordinator/scoring/scoring_run.hpp"
#include "fake_transport.hpp"
#include "stages/builtin_ladder.hpp"

namespace hpcreward {
namespace {

using test_support::Clock;
using test_support::FakeTransport;
using test_support::VectorSink;

constexpr double kTaskLimit = 10;  // every rank's, as its hello says
constexpr double kMargin = 5;      // so a rank holding a task must answer within 15 s

const LadderConfig &builtin() {
  static const LadderConfig config = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  return config;
}

PreparedCandidate ready(std::string id, std::string batch = "b1") {
  PreparedCandidate candidate;
  candidate.id = std::move(id);
  candidate.batch_id = std::move(batch);
  candidate.problem = "dgemm-256";
  candidate.code = "void matmul(){} /* " + candidate.id + " */";
  return candidate;
}

std::vector<PreparedCandidate> candidates(int count, const std::string &batch = "b1", const std::string &prefix = "c") {
  std::vector<PreparedCandidate> list;
  for (int i = 0; i < count; ++i) list.push_back(ready(prefix + std::to_string(i), batch));
  return list;
}

double seconds_since_start(Clock::time_point t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }

// A run on CPU ranks 1..n with the fake transport's clock; `notes` and `lost` collect what the
// run tells the operator and the quarantines it reports.
struct FaultRun {
  explicit FaultRun(int ranks = 2) : sqd(builtin(), true) {
    for (int rank = 1; rank <= ranks; ++rank) {
      RankInfo info;
      info.rank = rank;
      info.host = "node" + std::to_string(rank);
      info.task_limit_s = kTaskLimit;
      context.ranks.push_back(rank);
      context.rank_info[rank] = info;
    }
    context.host = "head";
    context.seed = 42;
    context.rank_deadline_margin_s = kMargin;
    context.stop_grace_s = 5;
    context.now = transport.clock();
  }
  // Records what the run reports of lost ranks and its notes.
  struct Recorder : ScoringObserver {
    explicit Recorder(FaultRun &run) : run(run) {}
    void rank_lost(const RankEventRecord &event) override { run.lost.push_back(event); }
    void note(const std::string &line) override { run.notes.push_back(line); }
    FaultRun &run;
  };
  ScoringRun make() { return ScoringRun(transport, sink, rewards, sqd, context, &recorder); }
  bool noted(const std::string &text) const {
    return std::any_of(notes.begin(), notes.end(), [&](const std::string &n) { return n.find(text) != std::string::npos; });
  }
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  SqdState sqd;
  ScoringContext context;
  std::vector<RankEventRecord> lost;
  std::vector<std::string> notes;
  Recorder recorder{*this};
};

// Each candidate id exactly once among `rows`.
void expect_one_row_each(const std::vector<RewardRow> &rows, const std::vector<PreparedCandidate> &list) {
  std::map<std::string, int> count;
  for (const RewardRow &row : rows) ++count[row.candidate_id];
  for (const PreparedCandidate &candidate : list) EXPECT_EQ(count[candidate.id], 1) << candidate.id;
  EXPECT_EQ(rows.size(), list.size());
}

TEST(ScoringRunFault, SilentRankIsQuarantinedAndItsTaskScoredByAnother) {
  FaultRun run;
  run.transport.answer_after_s[1] = FakeTransport::kNever;
  run.transport.answer_after_s[2] = 1;
  ScoringRun scoring = run.make();
  const auto list = candidates(4);
  scoring.score(list);

  expect_one_row_each(run.sink.rows, list);
  for (const RewardRow &row : run.sink.rows) EXPECT_EQ(row.rank, 2) << row.candidate_id << " logged from the silent rank";
  ASSERT_EQ(run.transport.sent_ids(1), std::vector<std::string>{"c0"}) << "the silent rank gets one task, no more";
  const std::vector<std::string> to_rank_2 = run.transport.sent_ids(2);
  ASSERT_FALSE(to_rank_2.empty());
  EXPECT_EQ(to_rank_2.front(), "c1");
  EXPECT_EQ(std::count(to_rank_2.begin(), to_rank_2.end(), "c0"), 1) << "its task went to the other rank";

  ASSERT_EQ(run.sink.rank_events.size(), 1u) << "the quarantine reaches the sink";
  const RankEventRecord &event = run.sink.rank_events[0];
  EXPECT_EQ(event.rank, 1);
  EXPECT_EQ(event.host, "node1");
  EXPECT_EQ(event.event, "quarantined");
  EXPECT_GT(event.time, 1e9) << "Unix seconds";
  EXPECT_NE(event.reason.find("no answer for 15 s; deadline 15 s (task limit 10 s + margin 5 s)"), std::string::npos)
      << event.reason;
  EXPECT_NE(event.reason.find("held candidate c0 sent to other ranks"), std::string::npos) << event.reason;
  ASSERT_EQ(run.lost.size(), 1u);
  EXPECT_EQ(run.lost[0], event);
  EXPECT_EQ(scoring.lost_ranks(), std::vector<RankEventRecord>{event});
  EXPECT_FALSE(scoring.cut_short());
  // Quarantined at its deadline, not before and not much after; the waits stayed short.
  EXPECT_GE(seconds_since_start(run.transport.now), 15.0);
  EXPECT_LT(seconds_since_start(run.transport.now), 15.0 + 4 * 1.0 + 0.5);
}

TEST(ScoringRunFault, ARankThatAnswersWithinItsDeadlineIsKept) {
  FaultRun run;
  run.transport.answer_after_s[1] = kTaskLimit + kMargin - 0.5;  // slow, but in time
  ScoringRun scoring = run.make();
  const auto list = candidates(3);
  scoring.score(list);
  expect_one_row_each(run.sink.rows, list);
  EXPECT_TRUE(run.sink.rank_events.empty());
  EXPECT_EQ(run.transport.sent.size(), 3u) << "nothing was sent twice";
}

TEST(ScoringRunFault, LateAnswerOfAQuarantinedRankIsDiscarded) {
  FaultRun run;
  run.transport.answer_after_s[1] = 30;  // past its 15 s deadline
  run.transport.answer_after_s[2] = 4;   // busy long enough for rank 1's answer to come in
  ScoringRun scoring = run.make();
  const auto list = candidates(10);
  EXPECT_NO_THROW(scoring.score(list));
  expect_one_row_each(run.sink.rows, list);
  for (const RewardRow &row : run.sink.rows) EXPECT_EQ(row.rank, 2) << row.candidate_id;
  EXPECT_EQ(run.transport.unanswered(), 0u) << "the late answer did come in";
  EXPECT_TRUE(run.noted("rank 1 answered candidate c0 after it was quarantined; the answer is discarded"));
  ASSERT_EQ(run.sink.rank_events.size(), 1u);
}

TEST(ScoringRunFault, LateAnswerInALaterServedBatchIsDiscardedNotTakenForANewTask) {
  FaultRun run;
  run.transport.answer_after_s[1] = 40;  // its batch-1 task (sequence 0) answers during batch 2
  run.transport.answer_after_s[2] = 3;
  ScoringRun scoring = run.make();
  const auto first = candidates(3, "b1", "a");
  const auto second = candidates(8, "b2", "b");
  std::vector<RewardRow> rows = scoring.score_one_batch(first);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(run.sink.rank_events.size(), 1u);
  EXPECT_NO_THROW(rows = scoring.score_one_batch(second));
  ASSERT_EQ(rows.size(), 8u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].candidate_id, second[i].id);
    EXPECT_EQ(rows[i].rank, 2);
  }
  EXPECT_EQ(run.transport.sent_ids(1), std::vector<std::string>{"a0"}) << "no work for it in later batches";
  EXPECT_TRUE(run.noted("rank 1 answered candidate a0 after it was quarantined"));
  EXPECT_EQ(run.sink.rows.size(), 11u);
}

TEST(ScoringRunFault, AQuarantinedRankGetsNoWorkInLaterBatches) {
  FaultRun run(3);
  run.transport.answer_after_s[2] = FakeTransport::kNever;
  ScoringRun scoring = run.make();
  std::vector<PreparedCandidate> list = candidates(4, "b1", "x");
  for (const PreparedCandidate &candidate : candidates(6, "b2", "y")) list.push_back(candidate);
  scoring.score(list);
  expect_one_row_each(run.sink.rows, list);
  EXPECT_EQ(run.transport.sent_ids(2).size(), 1u);
  ASSERT_EQ(run.sink.rank_events.size(), 1u);
  EXPECT_EQ(run.sink.rank_events[0].rank, 2);
}

TEST(ScoringRunFault, AllRanksSilentStopsWithNoRanksLeftAndKeepsTheRows) {
  FaultRun run;
  run.transport.silent_after[1] = 1;  // each answers one task, then hangs
  run.transport.silent_after[2] = 1;
  ScoringRun scoring = run.make();
  std::vector<PreparedCandidate> list = candidates(6);
  PreparedCandidate broken = ready("no-code");
  broken.code.clear();
  broken.verdict = {Status::format_error, "no code"};
  list.insert(list.begin(), broken);
  try {
    scoring.score(list);
    FAIL() << "a run with no rank left went on";
  } catch (const NoRanksLeft &error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("no cpu benchmark rank is left for the 4 candidates still to score (c2, c3, c4, c5)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("rank 1 on node1"), std::string::npos) << message;
    EXPECT_NE(message.find("rank 2 on node2"), std::string::npos) << message;
    EXPECT_NE(message.find("no answer for 15 s"), std::string::npos) << message;
    EXPECT_NE(message.find("--resume"), std::string::npos) << message;
  }
  // The rows so far are intact: the decided one and the two answered.
  ASSERT_EQ(run.sink.rows.size(), 3u);
  EXPECT_EQ(run.sink.rows[0].candidate_id, "no-code");
  EXPECT_EQ(run.sink.rank_events.size(), 2u);
  EXPECT_EQ(scoring.lost_ranks().size(), 2u);
}

TEST(ScoringRunFault, ASingleRankHangingIsNoRanksLeft) {
  FaultRun run(1);
  run.transport.silent_after[1] = 2;
  ScoringRun scoring = run.make();
  std::vector<PreparedCandidate> list = candidates(3, "b1", "x");
  for (const PreparedCandidate &candidate : candidates(2, "b2", "y")) list.push_back(candidate);
  EXPECT_THROW(scoring.score(list), NoRanksLeft);
  EXPECT_EQ(run.sink.rows.size(), 2u);
  EXPECT_EQ(run.sink.rank_events.size(), 1u);
}

// The stages an unbroken run gives each candidate, all ranks answering.
std::map<std::string, std::string> unbroken_stages(const std::vector<PreparedCandidate> &list) {
  FaultRun run;
  ScoringRun scoring = run.make();
  std::map<std::string, std::string> stages;
  for (const RewardRow &row : test_support::rows_written_by(run.sink, [&] { scoring.score(list); }))
    stages[row.candidate_id] = row.stage;
  return stages;
}

TEST(ScoringRunFault, StopDrainsWithinTheGraceThenAResumeScoresExactlyTheRest) {
  FaultRun run;
  run.context.rank_info[2].task_limit_s = 1000;  // slow, not hung
  run.transport.answer_after_s[1] = 1;
  run.transport.answer_after_s[2] = 100;
  run.context.stop_grace_s = 5;
  run.context.stop_requested = [&] { return run.sink.rows.size() >= 2; };
  ScoringRun scoring = run.make();
  std::vector<PreparedCandidate> list = candidates(6, "b1", "x");
  for (const PreparedCandidate &candidate : candidates(3, "b2", "y")) list.push_back(candidate);
  const std::vector<RewardRow> first_rows = test_support::rows_written_by(run.sink, [&] { scoring.score(list); });

  EXPECT_TRUE(scoring.cut_short());
  EXPECT_TRUE(scoring.stopping());
  // Rank 1 answered x0 at 1 s and x2 at 2 s; the stop came with the second row, so rank 1 got
  // nothing more; rank 2's x1 (due at 100 s) was not answered within the 5 s grace.
  ASSERT_EQ(first_rows.size(), 2u);
  EXPECT_EQ(first_rows[0].candidate_id, "x0");
  EXPECT_EQ(first_rows[1].candidate_id, "x2");
  EXPECT_EQ(run.sink.rows.size(), 2u) << "tasks not answered within the grace are not logged";
  EXPECT_GE(seconds_since_start(run.transport.now), 2.0 + 5);
  EXPECT_LT(seconds_since_start(run.transport.now), 2.0 + 5 + 0.5) << "the grace is kept";
  EXPECT_TRUE(run.sink.rank_events.empty()) << "a stop is not a quarantine";
  EXPECT_TRUE(run.noted("stopping: no new tasks; waiting up to 5 s for the 1 task the ranks hold"));
  EXPECT_TRUE(run.noted("stopped: 4 candidates of batch b1 have no row"));
  EXPECT_EQ(scoring.unanswered_at_stop(), 1u) << "rank 2 is still busy with x1";

  // The restart: the state rebuilt from the log, all ranks answering.
  std::vector<ArchiveRecord> missing;
  SqdState rebuilt = SqdState::rebuild(builtin(), true, run.sink.rows, run.sink.events, run.sink.archive,
                                       [](const RewardRow &) { return std::optional<double>(); }, missing);
  FakeTransport transport;
  VectorSink sink;
  ScoringContext context = run.context;
  context.stop_requested = {};
  context.now = transport.clock();
  ScoringRun resumed(transport, sink, run.rewards, rebuilt, context);
  resumed.score(list, run.sink.rows);
  EXPECT_FALSE(resumed.cut_short());
  std::vector<RewardRow> all = run.sink.rows;
  all.insert(all.end(), sink.rows.begin(), sink.rows.end());
  expect_one_row_each(all, list);
  std::set<std::string> rescored;
  for (const BenchTask &task : transport.sent) rescored.insert(task.candidate_id);
  EXPECT_EQ(rescored, (std::set<std::string>{"x1", "x3", "x4", "x5", "y0", "y1", "y2"}))
      << "exactly the candidates without a row are scored again";
  const std::map<std::string, std::string> stages = unbroken_stages(list);
  for (const RewardRow &row : all) EXPECT_EQ(row.stage, stages.at(row.candidate_id)) << row.candidate_id;
}

TEST(ScoringRunFault, StopWaitsForATaskAnsweredWithinTheGraceAndLogsIt) {
  FaultRun run;
  run.transport.answer_after_s[1] = 1;
  run.transport.answer_after_s[2] = 4;  // held when the stop comes at 1 s; answers at 4 s < 1 + 5
  run.context.stop_requested = [&] { return !run.sink.rows.empty(); };
  ScoringRun scoring = run.make();
  scoring.score(candidates(5));
  EXPECT_TRUE(scoring.cut_short()) << "c2, c3 and c4 were never sent";
  ASSERT_EQ(run.sink.rows.size(), 2u);
  EXPECT_EQ(run.sink.rows[0].candidate_id, "c0");
  EXPECT_EQ(run.sink.rows[1].candidate_id, "c1") << "the answer that came within the grace is logged";
  EXPECT_EQ(run.transport.sent.size(), 2u) << "nothing is sent once the stop came";
  EXPECT_EQ(scoring.unanswered_at_stop(), 0u);
}

TEST(ScoringRunFault, StopBeforeTheRunStartsScoresNothing) {
  FaultRun run;
  run.context.stop_requested = [] { return true; };
  ScoringRun scoring = run.make();
  scoring.score(candidates(3));
  EXPECT_TRUE(scoring.cut_short());
  EXPECT_TRUE(run.sink.rows.empty());
  EXPECT_TRUE(run.transport.sent.empty());
  EXPECT_TRUE(run.sink.events.empty());
}

TEST(ScoringRunFault, StopThatFindsEverythingAnsweredIsNotCutShort) {
  FaultRun run;
  run.context.stop_requested = [&] { return run.sink.rows.size() >= 3; };
  ScoringRun scoring = run.make();
  const auto list = candidates(3);
  scoring.score(list);
  EXPECT_FALSE(scoring.cut_short()) << "every candidate has its row";
  expect_one_row_each(run.sink.rows, list);
}

TEST(ScoringRunFault, ServedBatchCutShortByAStopSaysSo) {
  FaultRun run;
  run.context.rank_info[2].task_limit_s = 1000;
  run.transport.answer_after_s[2] = 100;
  run.context.stop_requested = [&] { return !run.sink.rows.empty(); };
  ScoringRun scoring = run.make();
  scoring.score_one_batch(candidates(4));
  EXPECT_TRUE(scoring.cut_short());
  EXPECT_EQ(run.sink.rows.size(), 1u);
}

TEST(ScoringRunFault, RanksWithoutATaskLimitHaveNoDeadline) {
  FaultRun run;
  run.context.rank_info[1].task_limit_s = 0;  // an older rank: no deadline
  run.transport.answer_after_s[1] = 3600;
  ScoringRun scoring = run.make();
  const auto list = candidates(2);
  scoring.score(list);
  expect_one_row_each(run.sink.rows, list);
  EXPECT_TRUE(run.sink.rank_events.empty());
}

}  // namespace
}  // namespace hpcreward
