// Which problems a run can score, and the messages that refuse the others.
#include "common/problem_catalog.hpp"
#include "coordinator/ranks/problem_support.hpp"

#include <gtest/gtest.h>

#include "common/messages_json.hpp"
#include "stages/builtin_ladder.hpp"

namespace hpcreward {
namespace {

RankInfo rank(int number, std::string kind, int slots = 1) {
  RankInfo info;
  info.rank = number;
  info.host = "n" + std::to_string(number);
  info.kind = std::move(kind);
  info.slots = slots;
  return info;
}

const LadderConfig &builtin() {
  static const LadderConfig config = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  return config;
}

PreparedCandidate line(std::string id, std::string problem) {
  PreparedCandidate candidate;
  candidate.id = std::move(id);
  candidate.problem = std::move(problem);
  return candidate;
}

TEST(ProblemSupport, LanguagesMapToRankKinds) {
  EXPECT_EQ(rank_kind_for(Language::c), "cpu");
  EXPECT_EQ(rank_kind_for(Language::cuda), "gpu");
}

TEST(ProblemSupport, RanksMustIntroduceThemselvesUsably) {
  EXPECT_FALSE(rank_info_error(rank(1, "cpu")));
  EXPECT_FALSE(rank_info_error(rank(2, "gpu", 4)));
  EXPECT_EQ(*rank_info_error(rank(3, "tpu")),
            "benchmark rank 3 (n3) says it is of kind \"tpu\"; the coordinator knows \"cpu\" and \"gpu\": run the "
            "same hpcreward build on every rank");
  EXPECT_NE(rank_info_error(rank(4, "gpu", 0))->find("asks for 0 task slots; 1 to 64 are allowed"), std::string::npos);
  EXPECT_TRUE(rank_info_error(rank(5, "gpu", 65)));
}

TEST(ProblemSupport, ACudaProblemNeedsAGpuRank) {
  const RunCapabilities cpu_only = run_capabilities({rank(1, "cpu"), rank(2, "cpu")}, &builtin(), "built-in");
  EXPECT_EQ(format_rank_kinds(cpu_only), "2 CPU");
  EXPECT_FALSE(problem_refusal(*find_problem("dgemm-256"), cpu_only));
  EXPECT_EQ(*problem_refusal(*find_problem("cuda-sgemm-4096"), cpu_only),
            "cuda-sgemm-4096 needs a GPU rank: start with jobs/local.sh --gpus N (hpcreward-bench --gpu ranks in "
            "the MPI job); this run has 2 CPU ranks and no GPU rank");
}

TEST(ProblemSupport, ACProblemNeedsACpuRank) {
  const RunCapabilities gpu_only = run_capabilities({rank(1, "gpu", 3)}, &builtin(), "built-in");
  EXPECT_EQ(format_rank_kinds(gpu_only), "1 GPU");
  EXPECT_FALSE(problem_refusal(*find_problem("cuda-hgemm-8192"), gpu_only));
  EXPECT_EQ(*problem_refusal(*find_problem("sgemm-512"), gpu_only),
            "sgemm-512 needs a CPU rank: start with jobs/local.sh --np N, N >= 1 (hpcreward-bench ranks without "
            "--gpu in the MPI job); this run has no CPU rank and 1 GPU rank");
}

TEST(ProblemSupport, ACudaProblemNeedsACudaLadder) {
  const LadderConfig c_only = parse_ladder_config(R"({"ladder": ["a"], "stages": [{"name": "a", "flags": ["-O3"]}]})",
                                                  "old.json");
  const RunCapabilities run = run_capabilities({rank(1, "cpu"), rank(2, "gpu", 2)}, &c_only, "old.json");
  EXPECT_EQ(format_rank_kinds(run), "1 CPU, 1 GPU");
  EXPECT_FALSE(problem_refusal(*find_problem("dgemm-256"), run));
  EXPECT_EQ(*problem_refusal(*find_problem("cuda-dgemm-1024"), run),
            "cuda-dgemm-1024 is a CUDA problem and the stage ladder old.json has no \"cuda_ladder\": add one (see "
            "stages/default_ladder.json)");
}

TEST(ProblemSupport, ACudaLadderWithACuteStageIsNoRefusalWithoutCute) {
  // A GPU rank without CuTe headers skips the stages that need them (RankSupport), it does not
  // refuse the problem.
  const LadderConfig cute_ladder = parse_ladder_config(
      R"({"ladder": ["a"], "cuda_ladder": ["x", "y"], "stages": [{"name": "a", "flags": ["-O3"]},
          {"name": "x", "language": "cuda", "flags": ["-O3"], "advance": [{"type": "max_candidates", "window": 3}]},
          {"name": "y", "language": "cuda", "flags": ["-O3"], "libraries": ["cute"]}]})",
      "cute.json");
  const RankInfo without = rank(3, "gpu", 2);
  EXPECT_FALSE(problem_refusal(*find_problem("cuda-hgemm-1024"), run_capabilities({without}, &cute_ladder, "cute.json")));
  EXPECT_FALSE(problem_refusal(*find_problem("cuda-hgemm-1024"), run_capabilities({without}, &builtin(), "built-in")));
}

TEST(ProblemSupport, AGpuRankSaysWhichCuteItHasInItsHello) {
  RankInfo info = rank(2, "gpu", 2);
  info.cute = "4.2.0";
  EXPECT_EQ(nlohmann::json(info).get<RankInfo>().cute, "4.2.0");
  nlohmann::json older = nlohmann::json(info);
  older.erase("cute");  // a rank built before CuTe stages: none
  EXPECT_EQ(older.get<RankInfo>().cute, "");
}

TEST(ProblemSupport, ServeModeChecksTheDefaultProblem) {
  const RunCapabilities gpu_only = run_capabilities({rank(1, "gpu", 3)}, &builtin(), "built-in");
  EXPECT_FALSE(default_problem_refusal("cuda-sgemm-1024", gpu_only));
  std::optional<std::string> refusal = default_problem_refusal("dgemm-256", gpu_only);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->rfind("--problem dgemm-256 (the problem of candidates that name none): dgemm-256 needs a CPU "
                           "rank: start with jobs/local.sh --np N",
                           0),
            0u)
      << *refusal;
  EXPECT_NE(refusal->find("; or give --problem a problem this run can score"), std::string::npos);
}

TEST(ProblemSupport, FileModeChecksEveryLineStillToScore) {
  const RunCapabilities cpu_only = run_capabilities({rank(1, "cpu")}, &builtin(), "built-in");
  std::vector<PreparedCandidate> lines = {line("c1", "dgemm-256"), line("g1", "cuda-sgemm-4096"),
                                          line("x", "zgemm-7"), line("h1", "cuda-hgemm-1024"),
                                          line("g2", "cuda-sgemm-4096")};
  EXPECT_EQ(*candidates_refusal(lines, {}, cpu_only),
            "cuda-sgemm-4096 needs a GPU rank: start with jobs/local.sh --gpus N (hpcreward-bench --gpu ranks in "
            "the MPI job); this run has 1 CPU rank and no GPU rank (2 candidates of the input are for "
            "cuda-sgemm-4096, the first g1)");
  // Lines a resumed run already logged need no rank; unknown problems are format_error rows.
  RewardRow logged;
  std::vector<const RewardRow *> done = {nullptr, &logged, nullptr, &logged, &logged};
  EXPECT_FALSE(candidates_refusal(lines, done, cpu_only));
  done[3] = nullptr;
  EXPECT_NE(candidates_refusal(lines, done, cpu_only)->find("(1 candidate of the input is for cuda-hgemm-1024, the first h1)"),
            std::string::npos);
  EXPECT_FALSE(candidates_refusal({line("c1", "dgemm-256"), line("x", "zgemm-7")}, {}, cpu_only));
}

}  // namespace
}  // namespace hpcreward
