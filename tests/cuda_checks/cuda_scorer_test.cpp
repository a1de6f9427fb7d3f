// The checks a GPU rank runs, assembled by add_cuda_checks, through a Scorer: source checks,
// nvcc (behind the shared test cache), the audit, technique detection. The runner is a fake:
// nothing is loaded or run.
#include "bench_node/cuda/cuda_checks.hpp"

#include <cstdlib>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "bench_node/rank/bench_options.hpp"
#include "common/problem_catalog.hpp"
#include "nvcc_support.hpp"
#include "stages/builtin_ladder.hpp"
#include "stages/ladder_config.hpp"

namespace hpcreward::cuda_test {
namespace {

class CudaScorer : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Nvcc::get().available() || !Nvcc::get().tools_available()) return;
    work = std::make_unique<WorkDir>(Nvcc::get().root(), "scorer");
    BenchOptions options;
    options.work_root = work->path();
    scorer = std::make_unique<Scorer>(options, std::make_unique<SharedCompiler>(),
                                      std::make_unique<CountingRunner>(runs));
    add_cuda_checks(*scorer, check_options(work->path()));
  }
  Measurement score(const std::string &source, std::vector<std::string> allowed,
                    std::vector<std::string> required = {}) {
    BenchTask task = Nvcc::get().task(source);
    task.stage = "smem-stage";
    task.techniques_allowed = std::move(allowed);
    task.techniques_required = std::move(required);
    return scorer->score(task);
  }
  std::unique_ptr<WorkDir> work;
  std::unique_ptr<Scorer> scorer;
  int runs = 0;
};

TEST_F(CudaScorer, ACandidateThatMeetsTheStageRuns) {
  REQUIRE_CUDA_TOOLS();
  const Measurement m = score(samples::kTiled, {"smem"}, {"smem"});
  EXPECT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(m.techniques.detected);
  EXPECT_EQ(m.techniques.techniques, std::vector<std::string>{"smem"});
  EXPECT_GT(m.compile_s, 0);
}

TEST_F(CudaScorer, AMissingRequiredTechniqueStopsBeforeRunning) {
  REQUIRE_CUDA_TOOLS();
  const Measurement m = score(samples::kNaive, {"smem"}, {"smem"});
  EXPECT_EQ(m.status, Status::constraint_violation) << m.reason;
  EXPECT_EQ(m.reason, "stage smem-stage requires smem, which the candidate does not use");
  EXPECT_TRUE(m.techniques.detected);
  EXPECT_EQ(runs, 0);
}

TEST_F(CudaScorer, ARefusedHeaderNeverReachesNvcc) {
  REQUIRE_CUDA_TOOLS();
  const std::size_t misses = Nvcc::get().compiler().stats().misses;
  const std::size_t hits = Nvcc::get().compiler().stats().hits;
  const Measurement m = score("#include <cublas_v2.h>\n" + samples::kNaive, {});
  EXPECT_EQ(m.status, Status::forbidden) << m.reason;
  EXPECT_NE(m.reason.find("cuBLAS"), std::string::npos) << m.reason;
  EXPECT_EQ(Nvcc::get().compiler().stats().misses, misses);
  EXPECT_EQ(Nvcc::get().compiler().stats().hits, hits);
  EXPECT_FALSE(m.techniques.detected);
  EXPECT_EQ(runs, 0);
}

TEST_F(CudaScorer, ACublasPrototypeIsForbidden) {
  REQUIRE_CUDA_TOOLS();
  const Measurement m = score(samples::kCublasPrototype, {});
  EXPECT_EQ(m.status, Status::forbidden) << m.reason;
  EXPECT_NE(m.reason.find("cuBLAS"), std::string::npos) << m.reason;
  EXPECT_EQ(runs, 0);
}

TEST_F(CudaScorer, AnAuditRefusalStopsBeforeTechniqueDetection) {
  REQUIRE_CUDA_TOOLS();
  const Measurement m = score(samples::host_does("", "  cudaDeviceReset();"), {"smem", "tensor", "async"});
  EXPECT_EQ(m.status, Status::forbidden) << m.reason;
  EXPECT_FALSE(m.techniques.detected);
  EXPECT_EQ(runs, 0);
}

// By hand: a candidates file (JSON Lines of id, problem, stage, source: what
// tests/gpu/cuda_l2_candidates.py writes) through every check a GPU rank makes before running,
// in each line's stage of the built-in ladder and the problem of the catalog
// HPCREWARD_PUBLISHED_CATALOG (default cuda-l2). Prints each candidate's status, techniques and
// reason, then the tally: what passes here reaches the runner on a GPU. Compiles under a GPU
// rank's limits (GpuRankOptions).
TEST_F(CudaScorer, DISABLED_PublishedCandidatesFile) {
  REQUIRE_CUDA_TOOLS();
  const char *path = std::getenv("HPCREWARD_PUBLISHED_CANDIDATES");
  ASSERT_NE(path, nullptr) << "set HPCREWARD_PUBLISHED_CANDIDATES";
  const char *catalog = std::getenv("HPCREWARD_PUBLISHED_CATALOG");
  install_problem_catalog(load_problem_catalog(catalog ? catalog : "cuda-l2"));
  const LadderConfig ladder = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  // A GPU rank's own compile limits (published CUTLASS files need more than this suite's).
  const GpuRankOptions rank;
  CudaCheckOptions checks = check_options(work->path());
  checks.compiler.timeout_s = rank.compile_timeout_s;
  checks.compiler.memory_bytes = rank.compile_memory_limit_mb << 20;
  BenchOptions options;
  options.work_root = work->path();
  int counted = 0;
  Scorer rank_scorer(options, make_cuda_compiler(checks), std::make_unique<CountingRunner>(counted));
  add_cuda_checks(rank_scorer, checks);
  std::ifstream in(path);
  std::map<std::string, int> tally;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const nlohmann::json candidate = nlohmann::json::parse(line);
    const StageSpec *stage = ladder.find(candidate.at("stage").get<std::string>());
    ASSERT_NE(stage, nullptr) << line.substr(0, 200);
    const Problem *problem = find_problem(candidate.at("problem").get<std::string>());
    ASSERT_NE(problem, nullptr) << candidate.at("problem") << " is not in the catalog";
    BenchTask task;
    task.source = candidate.at("source").get<std::string>();
    task.problem = *problem;
    task.stage = stage->name;
    task.compiler_flags = stage->compiler_flags;
    task.techniques_allowed = stage->techniques_allowed;
    task.techniques_required = stage->techniques_required;
    task.libraries = stage->libraries;
    const Measurement m = rank_scorer.score(task);
    std::string techniques;
    for (const std::string &t : m.techniques.techniques) techniques += (techniques.empty() ? "" : ",") + t;
    std::printf("%-32s %-20s %-24s %s\n", candidate.at("id").get<std::string>().c_str(),
                std::string(to_string(m.status)).c_str(), techniques.c_str(), m.reason.substr(0, 300).c_str());
    ++tally[std::string(to_string(m.status)) + (m.status == Status::ok ? "" : ": " + m.reason.substr(0, 120))];
  }
  for (const auto &[what, count] : tally) std::printf("%5d  %s\n", count, what.c_str());
  install_problem_catalog(load_problem_catalog("default"));
}

}  // namespace
}  // namespace hpcreward::cuda_test
