// ScoringRun with CPU and GPU ranks: each task goes to a rank of its problem's kind, GPU
// ranks hold up to their slots, rows carry the device, CUDA problems climb the CUDA ladder
// on their cuBLAS fraction. In process, with a fake transport: no MPI, no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

#include "coordinator/scoring/scoring_run.hpp"
#include "stages/builtin_ladder.hpp"

namespace hpcreward {
namespace {

RankInfo rank(int number, std::string kind, int slots) {
  RankInfo info;
  info.rank = number;
  info.host = "node" + std::to_string(number);
  info.kind = std::move(kind);
  info.slots = slots;
  return info;
}

// Holds every task sent and answers the newest first (so older ones stay outstanding and
// the slot limits are exercised); checks kinds and slots as tasks arrive.
class SlotTransport : public BenchTransport {
 public:
  explicit SlotTransport(std::map<int, RankInfo> ranks) : ranks_(std::move(ranks)) {}
  void send_task(int rank, const BenchTask &task) override {
    const RankInfo &info = ranks_.at(rank);
    const std::string wanted = task.problem.language == Language::cuda ? "gpu" : "cpu";
    EXPECT_EQ(info.kind, wanted) << task.candidate_id << " (" << task.problem.id << ") went to rank " << rank;
    int &held = outstanding[rank];
    ++held;
    EXPECT_LE(held, info.slots) << "rank " << rank << " holds more tasks than its slots";
    most_held[rank] = std::max(most_held[rank], held);
    sent.push_back({rank, task});
    pending_.push_back({rank, task});
  }
  std::optional<BenchResult> receive_result(std::chrono::milliseconds) override {
    EXPECT_FALSE(pending_.empty());
    if (pending_.empty()) return std::nullopt;
    auto [rank, task] = pending_.back();
    pending_.pop_back();
    --outstanding[rank];
    BenchResult result;
    result.sequence = task.sequence;
    result.rank = rank;
    result.host = ranks_.at(rank).host;
    if (ranks_.at(rank).kind == "gpu") result.device = "cuda:" + std::to_string(rank) + " NVIDIA H100 80GB HBM3";
    result.measurement.status = Status::ok;
    result.measurement.gflops = gflops.count(task.candidate_id) ? gflops[task.candidate_id] : 100;
    return result;
  }
  std::vector<std::pair<int, BenchTask>> sent;
  std::map<int, int> outstanding, most_held;
  std::map<std::string, double> gflops;  // by candidate id; 100 otherwise

 private:
  std::map<int, RankInfo> ranks_;
  std::vector<std::pair<int, BenchTask>> pending_;
};

class VectorSink : public RowSink {
 public:
  void append(const RewardRow &row, std::string_view) override { rows.push_back(row); }
  void append_event(const StageEventRecord &event) override { events.push_back(event); }
  void append_archive(const ArchiveRecord &) override {}
  void append_rank_event(const RankEventRecord &) override {}
  std::vector<RewardRow> rows;
  std::vector<StageEventRecord> events;
};

PreparedCandidate ready(std::string id, std::string problem, std::string batch = "b1", std::string stage = "") {
  PreparedCandidate candidate;
  candidate.id = std::move(id);
  candidate.batch_id = std::move(batch);
  candidate.problem = std::move(problem);
  candidate.stage = std::move(stage);
  candidate.stage_named = !candidate.stage.empty();
  candidate.code = "void matmul(){} /* " + candidate.id + " */";  // distinct: each is measured
  return candidate;
}

const LadderConfig &builtin() {
  static const LadderConfig config = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  return config;
}

// CPU ranks 1 and 3 (one slot), GPU rank 2 (three slots) with cuBLAS ceilings.
struct MixedRun {
  MixedRun(const LadderConfig &config = builtin()) : sqd(config, true) {
    RankInfo gpu = rank(2, "gpu", 3);
    gpu.peak_gflops_f64 = 50000;
    gpu.peak_gflops_f32 = 40000;
    gpu.peak_gflops_f16 = 600000;
    context.ranks = {1, 2, 3};
    context.host = "head";
    context.seed = 7;
    context.rank_info = {{1, rank(1, "cpu", 1)}, {2, gpu}, {3, rank(3, "cpu", 1)}};
  }
  std::vector<RewardRow> score(std::vector<PreparedCandidate> candidates) {
    ScoringRun run(transport, sink, rewards, sqd, context);
    const std::size_t before = sink.rows.size();  // score() keeps no rows: they are in the sink
    run.score(std::move(candidates));
    return {sink.rows.begin() + static_cast<std::ptrdiff_t>(before), sink.rows.end()};
  }
  ScoringContext context;
  SlotTransport transport{std::map<int, RankInfo>{{1, rank(1, "cpu", 1)}, {2, rank(2, "gpu", 3)}, {3, rank(3, "cpu", 1)}}};
  VectorSink sink;
  RewardTable rewards;
  SqdState sqd;
};

TEST(ScoringRunGpu, EachProblemGoesToRanksOfItsKindWithinTheirSlots) {
  MixedRun run;
  std::vector<PreparedCandidate> batch;
  for (int i = 0; i < 8; ++i) {
    batch.push_back(ready("g" + std::to_string(i), "cuda-sgemm-4096"));
    batch.push_back(ready("c" + std::to_string(i), "dgemm-256"));
  }
  PreparedCandidate broken = ready("bad", "cuda-sgemm-4096");
  broken.code.clear();
  broken.verdict = {Status::format_error, "no code"};
  batch.push_back(broken);
  std::vector<RewardRow> rows = run.score(batch);
  ASSERT_EQ(rows.size(), 17u);
  EXPECT_EQ(run.transport.sent.size(), 16u);
  EXPECT_EQ(run.transport.most_held[2], 3) << "the GPU rank used its three slots";
  EXPECT_EQ(run.transport.most_held[1], 1);
  EXPECT_EQ(run.transport.most_held[3], 1);
  for (const RewardRow &row : rows) {
    if (row.candidate_id == "bad") {
      EXPECT_EQ(row.device, "") << "decided by the coordinator";
      EXPECT_EQ(row.rank, 0);
    } else if (row.candidate_id[0] == 'g') {
      EXPECT_EQ(row.rank, 2);
      EXPECT_EQ(row.device, "cuda:2 NVIDIA H100 80GB HBM3");
      EXPECT_EQ(row.stage, "cuda-naive") << "a CUDA problem starts on the CUDA ladder";
    } else {
      EXPECT_NE(row.rank, 2);
      EXPECT_EQ(row.device, "cpu") << "a CPU rank that names no device";
      EXPECT_EQ(row.stage, "o0");
    }
  }
  // Tasks carry the CUDA problem and the stage's rules.
  auto cuda_task = std::find_if(run.transport.sent.begin(), run.transport.sent.end(),
                                [](const auto &sent) { return sent.second.candidate_id == "g0"; });
  ASSERT_NE(cuda_task, run.transport.sent.end());
  EXPECT_EQ(cuda_task->second.problem.language, Language::cuda);
  EXPECT_EQ(cuda_task->second.problem.precision, Precision::f32);
  EXPECT_EQ(cuda_task->second.stage, "cuda-naive");
  EXPECT_EQ(cuda_task->second.compiler_flags, std::vector<std::string>{"-O3"});
}

TEST(ScoringRunGpu, NamedCudaStagesCarryTheirTechniques) {
  MixedRun run;
  run.score({ready("t", "cuda-hgemm-1024", "b1", "cuda-tensor")});
  ASSERT_EQ(run.transport.sent.size(), 1u);
  const BenchTask &task = run.transport.sent[0].second;
  EXPECT_EQ(task.stage, "cuda-tensor");
  EXPECT_EQ(task.techniques_allowed, (std::vector<std::string>{"smem", "tensor"}));
  EXPECT_EQ(task.techniques_required, std::vector<std::string>{"tensor"});
}

TEST(ScoringRunGpu, CudaProblemsAdvanceOnTheirShareOfCublas) {
  LadderConfig config = parse_ladder_config(R"({"ladder": ["o0"], "cuda_ladder": ["n", "s"], "stages": [
    {"name": "o0", "flags": ["-O0"]},
    {"name": "n", "language": "cuda", "flags": ["-O3"], "advance": [{"type": "best_fraction_of_blas", "threshold": 0.1}]},
    {"name": "s", "language": "cuda", "flags": ["-O3"], "allows": ["smem"], "requires": ["smem"]}]})",
                                            "test");
  MixedRun run(config);
  run.transport.gflops = {{"slow", 3000}, {"fast", 4500}};  // of 40000 (f32): 7.5%, 11.25%
  std::vector<RewardRow> rows = run.score({ready("slow", "cuda-sgemm-1024", "b1"), ready("fast", "cuda-sgemm-1024", "b2"),
                                           ready("next", "cuda-sgemm-1024", "b3")});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].stage, "n");
  EXPECT_EQ(rows[1].stage, "n");
  EXPECT_EQ(rows[2].stage, "s");
  ASSERT_EQ(run.sink.events.size(), 1u);
  EXPECT_EQ(run.sink.events[0].detail, "best 0.1125 of cuBLAS >= 0.1");
  EXPECT_EQ(run.sink.events[0].rows_before, 2u);
}

TEST(ScoringRunGpu, BlasCeilingFollowsThePrecision) {
  MixedRun run;
  EXPECT_EQ(rank_blas_gflops(run.context.rank_info, 2, "cuda-dgemm-4096"), 50000);
  EXPECT_EQ(rank_blas_gflops(run.context.rank_info, 2, "cuda-sgemm-4096"), 40000);
  EXPECT_EQ(rank_blas_gflops(run.context.rank_info, 2, "cuda-hgemm-4096"), 600000);
  EXPECT_FALSE(rank_blas_gflops(run.context.rank_info, 1, "cuda-hgemm-4096")) << "a CPU rank has no f16 ceiling";
}

TEST(ScoringRunGpu, AProblemNoRankCanTakeIsAnErrorNotAHang) {
  SqdState sqd(builtin(), true);
  SlotTransport transport{std::map<int, RankInfo>{{1, rank(1, "cpu", 1)}}};
  VectorSink sink;
  RewardTable rewards;
  ScoringRun run(transport, sink, rewards, sqd, {{1}, "head", 1, {{1, rank(1, "cpu", 1)}}});
  try {
    run.score({ready("g", "cuda-dgemm-1024")});
    FAIL() << "a CUDA candidate was accepted by a run without GPU ranks";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("candidate g: cuda-dgemm-1024 needs a GPU rank"), std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(transport.sent.empty());
}

}  // namespace
}  // namespace hpcreward
