#include "coordinator/scoring_run.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <map>

namespace hpcreward {
namespace {

// Answers tasks in the order sent, with a measurement chosen by the candidate id, and
// checks the one-task-per-rank rule the scheduler promises.
class FakeTransport : public BenchTransport {
 public:
  void send_task(int rank, const BenchTask &task) override {
    EXPECT_EQ(busy_.count(rank), 0u) << "rank " << rank << " got a second task";
    busy_[rank] = task.sequence;
    sent.push_back(task);
    pending_.push_back({rank, task});
  }
  BenchResult receive_result() override {
    EXPECT_FALSE(pending_.empty());
    auto [rank, task] = pending_.front();
    pending_.pop_front();
    busy_.erase(rank);
    BenchResult result;
    result.sequence = task.sequence;
    result.rank = rank;
    result.host = "node" + std::to_string(rank);
    if (task.candidate_id.starts_with("bad")) {
      result.measurement.status = Status::wrong_answer;
      result.measurement.reason = "mismatch";
    } else {
      result.measurement.status = Status::ok;
      result.measurement.gflops = 3.5;
    }
    return result;
  }
  std::vector<BenchTask> sent;

 private:
  std::map<int, std::int64_t> busy_;
  std::deque<std::pair<int, BenchTask>> pending_;
};

class VectorSink : public RowSink {
 public:
  void append(const RewardRow &row, std::string_view source) override {
    rows.push_back(row);
    sources.emplace_back(source);
  }
  std::vector<RewardRow> rows;
  std::vector<std::string> sources;
};

PreparedCandidate ready(std::string id, std::string stage = "o3") {
  return {id, "b1", "dgemm-256", stage, "void matmul(){} /* " + id + " */", {}};
}

PreparedCandidate rejected(std::string id) {
  return {id, "b1", "dgemm-256", "o3", "", {Status::format_error, "no code"}};
}

TEST(ScoringRun, EveryCandidateGetsExactlyOneRow) {
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  ScoringRun run(transport, sink, rewards, {{1, 2}, "head", 42});
  auto rows = run.score({ready("a"), rejected("r1"), ready("bad1"), ready("b", "open"), ready("c")});
  ASSERT_EQ(rows.size(), 5u);
  ASSERT_EQ(sink.rows.size(), 5u);
  std::map<std::string, RewardRow> by_id;
  for (const auto &row : rows) by_id[row.candidate_id] = row;
  ASSERT_EQ(by_id.size(), 5u);
  EXPECT_EQ(by_id["r1"].status, "format_error");
  EXPECT_EQ(by_id["r1"].reward, -100);
  EXPECT_EQ(by_id["r1"].rank, 0);
  EXPECT_EQ(by_id["r1"].host, "head");
  EXPECT_EQ(by_id["r1"].source_sha256, "");
  EXPECT_EQ(by_id["bad1"].status, "wrong_answer");
  EXPECT_EQ(by_id["bad1"].reward, -10);
  EXPECT_EQ(by_id["a"].status, "ok");
  EXPECT_EQ(by_id["a"].reward, 3.5);
  EXPECT_EQ(by_id["a"].source_sha256.size(), 64u);
  EXPECT_EQ(by_id["a"].host, "node" + std::to_string(by_id["a"].rank));
  EXPECT_EQ(transport.sent.size(), 4u) << "format errors are never benchmarked";
}

TEST(ScoringRun, TasksCarryTheStageFlagsProblemAndSeed) {
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  ScoringRun run(transport, sink, rewards, {{1}, "head", 42});
  run.score({ready("a", "o0"), ready("b", "open")});
  ASSERT_EQ(transport.sent.size(), 2u);
  EXPECT_EQ(transport.sent[0].compiler_flags, std::vector<std::string>{"-O0"});
  EXPECT_EQ(transport.sent[1].stage, "open");
  EXPECT_EQ(transport.sent[1].problem.nominal, (Shape{256, 256, 256}));
  EXPECT_EQ(transport.sent[0].seed, candidate_seed(42, 0));
  EXPECT_NE(transport.sent[0].seed, transport.sent[1].seed);
  EXPECT_EQ(sink.rows[0].seed, transport.sent[0].seed);
}

TEST(ScoringRun, DuplicateIdsAreFormatErrors) {
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  ScoringRun run(transport, sink, rewards, {{1}, "head", 1});
  auto rows = run.score({ready("a"), ready("a")});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].status, "format_error");
  EXPECT_NE(rows[0].reason.find("duplicate id"), std::string::npos);
  EXPECT_EQ(rows[1].status, "ok");
}

TEST(ScoringRun, SourcesGoToTheSinkWithTheirRows) {
  FakeTransport transport;
  VectorSink sink;
  RewardTable rewards;
  ScoringRun run(transport, sink, rewards, {{1}, "head", 1});
  run.score({ready("a")});
  ASSERT_EQ(sink.sources.size(), 1u);
  EXPECT_EQ(sink.sources[0], "void matmul(){} /* a */");
}

TEST(CandidateSeed, IsDeterministicAndSpread) {
  EXPECT_EQ(candidate_seed(7, 3), candidate_seed(7, 3));
  EXPECT_NE(candidate_seed(7, 3), candidate_seed(7, 4));
  EXPECT_NE(candidate_seed(7, 3), candidate_seed(8, 3));
}

}  // namespace
}  // namespace hpcreward
