// Technique detection from the SASS of objects nvcc really built, and the stage's decision.
#include "bench_node/cuda/cuda_technique_check.hpp"

#include <stdexcept>

#include "nvcc_support.hpp"

namespace hpcreward::cuda_test {
namespace {

CudaTechniqueOptions technique_options() {
  const CudaCheckOptions options = check_options({});
  CudaTechniqueOptions techniques;
  techniques.dump.cuobjdump = options.cuobjdump;
  techniques.dump.nvdisasm = options.nvdisasm;
  techniques.arch = options.compiler.arch;
  return techniques;
}

TechniqueAssessment assess(const std::string &source, const std::string &problem,
                           std::vector<std::string> allowed = {"smem", "tensor", "async"},
                           std::vector<std::string> required = {}) {
  const CompileOutcome &built = Nvcc::get().build(source);
  EXPECT_TRUE(built.verdict.ok()) << built.verdict.reason << "\n" << built.log;
  BenchTask task = Nvcc::get().task(source, problem);
  task.stage = "gpu";
  task.techniques_allowed = std::move(allowed);
  task.techniques_required = std::move(required);
  CudaTechniqueStep step(technique_options());
  return step.assess(task, built.object);
}

using Names = std::vector<std::string>;

TEST(CudaTechniques, ANaiveKernelUsesNone) {
  REQUIRE_CUDA_TOOLS();
  const TechniqueAssessment found = assess(samples::kNaive, "cuda-dgemm-1024");
  EXPECT_TRUE(found.verdict.ok()) << found.verdict.reason;
  EXPECT_TRUE(found.summary.detected) << found.summary.evidence;
  EXPECT_EQ(found.summary.techniques, Names{});
  EXPECT_TRUE(found.summary.loop_order.empty());
  EXPECT_TRUE(found.summary.tile_sizes.empty());
  EXPECT_NE(found.summary.evidence.find("smem: none; tensor: none; async: none"), std::string::npos)
      << found.summary.evidence;
  const TechniqueAssessment required = assess(samples::kNaive, "cuda-dgemm-1024", {"smem"}, {"smem"});
  EXPECT_EQ(required.verdict.status, Status::constraint_violation);
  EXPECT_EQ(required.verdict.reason, "stage gpu requires smem, which the candidate does not use");
}

TEST(CudaTechniques, SharedMemoryTiling) {
  REQUIRE_CUDA_TOOLS();
  const TechniqueAssessment found = assess(samples::kTiled, "cuda-dgemm-1024");
  EXPECT_EQ(found.summary.techniques, Names{"smem"}) << found.summary.evidence;
  EXPECT_NE(found.summary.evidence.find("in _Z5tilediiiPKdS0_Pd"), std::string::npos)
      << found.summary.evidence;
  // 2 x 16 x 16 doubles, plus the 1 KiB per block that sm_8x/sm_90 reserve (ptxas counts it).
  EXPECT_NE(found.summary.evidence.find("(static shared 5120 bytes)"), std::string::npos)
      << found.summary.evidence;
  const TechniqueAssessment refused = assess(samples::kTiled, "cuda-dgemm-1024", {});
  EXPECT_EQ(refused.verdict.status, Status::constraint_violation);
  EXPECT_EQ(refused.verdict.reason, "stage gpu does not allow smem");
  EXPECT_EQ(refused.summary.techniques, Names{"smem"});  // the summary travels with the refusal
}

TEST(CudaTechniques, WmmaIsTensorCores) {
  REQUIRE_CUDA_TOOLS();
  const TechniqueAssessment found = assess(samples::kWmma, "cuda-hgemm-1024");
  EXPECT_EQ(found.summary.techniques, Names{"tensor"}) << found.summary.evidence;
  EXPECT_NE(found.summary.evidence.find("first HMMA"), std::string::npos) << found.summary.evidence;
  const TechniqueAssessment refused = assess(samples::kWmma, "cuda-hgemm-1024", {"smem"}, {"smem"});
  EXPECT_EQ(refused.verdict.reason,
            "stage gpu does not allow tensor; stage gpu requires smem, which the candidate does not use");
}

TEST(CudaTechniques, CpAsyncIsAsyncAndSharedMemory) {
  REQUIRE_CUDA_TOOLS();
  const TechniqueAssessment found = assess(samples::kCpAsync, "cuda-sgemm-1024");
  EXPECT_EQ(found.summary.techniques, (Names{"smem", "async"})) << found.summary.evidence;
  EXPECT_NE(found.summary.evidence.find("first LDGSTS"), std::string::npos) << found.summary.evidence;
}

TEST(CudaTechniques, HopperBulkCopiesAndWarpgroupMma) {
  REQUIRE_CUDA_TOOLS();
  const TechniqueAssessment found = assess(samples::kHopperPtx, "cuda-sgemm-1024");
  EXPECT_EQ(found.summary.techniques, (Names{"smem", "tensor", "async", "wgmma", "tma"})) << found.summary.evidence;
  EXPECT_NE(found.summary.evidence.find("first HGMMA.64x8x16.F32"), std::string::npos) << found.summary.evidence;
  // A stage that allows tensor and async allows their refinements; one that requires wgmma and
  // tma is satisfied.
  EXPECT_TRUE(assess(samples::kHopperPtx, "cuda-sgemm-1024", {"smem", "tensor", "async"}).verdict.ok());
  EXPECT_TRUE(assess(samples::kHopperPtx, "cuda-sgemm-1024", {"smem", "tensor", "async"}, {"wgmma", "tma"})
                  .verdict.ok());
  EXPECT_EQ(assess(samples::kHopperPtx, "cuda-sgemm-1024", {"smem", "tensor"}).verdict.reason,
            "stage gpu does not allow async; stage gpu does not allow tma");
  EXPECT_NE(found.summary.evidence.find("first UBLKCP"), std::string::npos) << found.summary.evidence;
}

TEST(CudaTechniques, NamesStringsAndCommentsNeverCount) {
  REQUIRE_CUDA_TOOLS();
  const TechniqueAssessment found = assess(samples::kNamedHmma, "cuda-dgemm-1024", {});
  EXPECT_TRUE(found.verdict.ok()) << found.verdict.reason;
  EXPECT_TRUE(found.summary.detected);
  EXPECT_EQ(found.summary.techniques, Names{}) << found.summary.evidence;
}

TEST(CudaTechniques, DetectionThatCannotFinishIsAConstraintViolation) {
  REQUIRE_CUDA_TOOLS();
  WorkDir directory(Nvcc::get().root(), "junk");
  ASSERT_TRUE(write_private_file(directory.path() / "cand.so", "not an ELF file"));
  CudaTechniqueStep step(technique_options());
  const TechniqueAssessment found = step.assess(Nvcc::get().task(""), directory.path() / "cand.so");
  EXPECT_EQ(found.verdict.status, Status::constraint_violation);
  EXPECT_NE(found.verdict.reason.find("technique detection failed: cuobjdump failed"), std::string::npos)
      << found.verdict.reason;
  EXPECT_FALSE(found.summary.detected);

  // A dump with no cubin for the rank's GPU (the object was built for another arch).
  CudaTechniqueOptions blackwell = technique_options();
  blackwell.arch = "sm_100a";
  const TechniqueAssessment other =
      CudaTechniqueStep(blackwell).assess(Nvcc::get().task(""), Nvcc::get().build(samples::kNaive).object);
  EXPECT_EQ(other.verdict.status, Status::constraint_violation);
  EXPECT_NE(other.verdict.reason.find("no device code for sm_100a"), std::string::npos) << other.verdict.reason;

  // A dump that ran past its limit.
  CudaTechniqueOptions tiny = technique_options();
  tiny.dump.output_limit_bytes = 64;
  const TechniqueAssessment truncated =
      CudaTechniqueStep(tiny).assess(Nvcc::get().task(""), Nvcc::get().build(samples::kNaive).object);
  EXPECT_EQ(truncated.verdict.status, Status::constraint_violation);
  EXPECT_NE(truncated.verdict.reason.find("larger than"), std::string::npos) << truncated.verdict.reason;
}

TEST(CudaTechniques, MissingToolsStopTheRankFromStarting) {
  CudaTechniqueOptions options;
  options.dump.cuobjdump = "/nonexistent/cuobjdump";
  EXPECT_THROW(CudaTechniqueStep{options}, std::invalid_argument);
  options = CudaTechniqueOptions{};
  options.arch = "compute_90";
  EXPECT_THROW(CudaTechniqueStep{options}, std::invalid_argument);
}

}  // namespace
}  // namespace hpcreward::cuda_test
