// The checks a GPU rank runs, assembled by add_cuda_checks, through a Scorer: source checks,
// nvcc (behind the shared test cache), the audit, technique detection. The runner is a fake:
// nothing is loaded or run.
#include "bench_node/cuda/cuda_checks.hpp"

#include "nvcc_support.hpp"

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

}  // namespace
}  // namespace hpcreward::cuda_test
