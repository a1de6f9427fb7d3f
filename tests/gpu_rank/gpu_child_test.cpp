// The GPU rank's side of its children, without a GPU: which device a rank's children see,
// their command line and limits, and the GPU peak guard.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "bench_node/gpu/gpu_ceilings.hpp"
#include "bench_node/gpu/gpu_child.hpp"
#include "bench_node/cpu/runner_args.hpp"
#include "common/problem_catalog.hpp"

namespace hpcreward {
namespace {

bool has_argument_pair(const std::vector<std::string> &arguments, const std::string &name, const std::string &value) {
  for (std::size_t i = 0; i + 1 < arguments.size(); ++i)
    if (arguments[i] == name && arguments[i + 1] == value) return true;
  return false;
}

TEST(VisibleDevice, IsTheIndexWithoutAnInheritedList) {
  EXPECT_EQ(visible_device_for(0, nullptr), "0");
  EXPECT_EQ(visible_device_for(3, ""), "3");
}

TEST(VisibleDevice, PicksTheEntryOfAnInheritedList) {
  EXPECT_EQ(visible_device_for(0, "2,3"), "2");
  EXPECT_EQ(visible_device_for(1, "2,3"), "3");
  EXPECT_EQ(visible_device_for(1, "GPU-aaaa,GPU-bbbb"), "GPU-bbbb");
}

TEST(VisibleDevice, RefusesMoreRanksThanListedGpus) {
  try {
    visible_device_for(2, "2,3");
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("lists 2"), std::string::npos) << error.what();
  }
}

TEST(GpuChildEnvironment, ShowsOnlyTheRanksGpuAndKeepsNoJitCache) {
  const Environment environment = gpu_child_environment("5", 4);
  EXPECT_EQ(get_variable(environment, "CUDA_VISIBLE_DEVICES"), std::optional<std::string>("5"));
  EXPECT_EQ(get_variable(environment, "CUDA_CACHE_DISABLE"), std::optional<std::string>("1"));
}

// The rank's choice, not whatever the job's environment held: the queues shape every
// candidate's set-up and its streams, and the log records the rank's value.
TEST(GpuChildEnvironment, SetsTheRanksWorkQueuesOverTheJobs) {
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 1);
  const Environment environment = gpu_child_environment("0", 2);
  ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
  EXPECT_EQ(get_variable(environment, "CUDA_DEVICE_MAX_CONNECTIONS"), std::optional<std::string>("2"));
  EXPECT_EQ(get_variable(gpu_child_environment("0", kDefaultGpuConnections), "CUDA_DEVICE_MAX_CONNECTIONS"),
            std::optional<std::string>("4"));
}

TEST(GpuSandboxedRunner, PassesTheProblemsToleranceAndTheDevicesL2) {
  GpuChildOptions options;
  options.runner = "/opt/bin/hpcreward-gpu-runner";
  options.visible_device = "1";
  options.timeout_s = 40;
  options.l2_bytes = 50 << 20;
  GpuSandboxedRunner runner(options);
  BenchTask task;
  task.problem = *find_problem("cuda-hgemm-1024");
  task.seed = 9;
  const ChildSpec spec = runner.child_spec({"/w/cand.so", "/w", &task}, "token");
  EXPECT_EQ(spec.program, "/opt/bin/hpcreward-gpu-runner");
  EXPECT_TRUE(has_argument_pair(spec.arguments, "--precision", "f16"));
  EXPECT_TRUE(has_argument_pair(spec.arguments, "--l2-bytes", std::to_string(50 << 20)));
  EXPECT_TRUE(std::find(spec.arguments.begin(), spec.arguments.end(), "--element-tolerance") != spec.arguments.end());
  EXPECT_EQ(spec.deadline_s, 40);
  EXPECT_EQ(spec.limits.file_size_bytes, std::optional<std::uint64_t>(4096)) << "the control page's memfd only";
  EXPECT_FALSE(spec.limits.address_space_bytes.has_value()) << "CUDA reserves address space: no RLIMIT_AS";
  EXPECT_EQ(spec.limits.data_bytes, std::optional<std::uint64_t>(16ULL << 30)) << "RLIMIT_DATA: host memory";
  EXPECT_EQ(spec.limits.open_files, std::optional<std::uint64_t>(256));
  EXPECT_EQ(get_variable(spec.environment, "CUDA_VISIBLE_DEVICES"), std::optional<std::string>("1"));
  EXPECT_EQ(spec.working_directory, "/w");
}

TEST(GpuSandboxedRunner, CarriesTheRanksHostMemoryLimit) {
  GpuChildOptions options;
  options.runner = "/opt/bin/hpcreward-gpu-runner";
  options.host_memory_bytes = 3ULL << 30;
  BenchTask task;
  task.problem = *find_problem("cuda-dgemm-1024");
  const ChildSpec spec = GpuSandboxedRunner(options).child_spec({"/w/cand.so", "/w", &task}, "token");
  EXPECT_EQ(spec.limits.data_bytes, std::optional<std::uint64_t>(3ULL << 30));
  EXPECT_TRUE(spec.limits.cpu_seconds.has_value());
  EXPECT_EQ(spec.limits.file_size_bytes, std::optional<std::uint64_t>(4096)) << "the control page's memfd only";
}

TEST(GpuRunnerArgs, RoundTripTheGpuOptions) {
  RunnerArgs args;
  args.object_path = "/w/cand.so";
  args.precision = Precision::f16;
  args.nominal = {1024, 1024, 1024};
  args.check_shapes = {{31, 17, 23}};
  args.tolerance = 2e-3;
  args.element_tolerance = 1e-2;
  args.ring_bytes = 1ULL << 33;
  args.l2_bytes = 52428800;
  std::vector<std::string> text = to_arguments(args);
  text.insert(text.begin(), "hpcreward-gpu-runner");
  std::vector<const char *> argv;
  for (const std::string &item : text) argv.push_back(item.c_str());
  const RunnerArgs parsed = parse_runner_args(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(parsed.precision, Precision::f16);
  EXPECT_DOUBLE_EQ(parsed.element_tolerance, 1e-2);
  EXPECT_EQ(parsed.ring_bytes, 1ULL << 33);
  EXPECT_EQ(parsed.l2_bytes, 52428800u);
}

TEST(GpuPeakGuard, RefusesAResultAboveTheCeilingOfItsPrecision) {
  const GpuCeilings ceilings{50000, 350000, 640000};
  Measurement fast;
  fast.status = Status::ok;
  fast.gflops = 70000;  // above 1.25 x the f64 ceiling, below the f32 one
  const Measurement guarded = apply_gpu_peak_guard(fast, Precision::f64, ceilings, 1.25, 8192);
  EXPECT_EQ(guarded.status, Status::forbidden);
  EXPECT_NE(guarded.reason.find("ceiling"), std::string::npos);
  EXPECT_EQ(apply_gpu_peak_guard(fast, Precision::f32, ceilings, 1.25, 8192).status, Status::ok);
}

// A problem of fp16 accumulation is held to twice the f16 ceiling (cuBLAS's HGEMM accumulates in
// fp32; on some GPUs fp16 accumulation runs at twice that rate).
TEST(GpuPeakGuard, Fp16AccumulationIsHeldToTwiceTheFp32AccumulationCeiling) {
  GpuCeilings ceilings;
  ceilings.f16 = 100000;
  Measurement fast;
  fast.status = Status::ok;
  fast.gflops = 200000;
  EXPECT_EQ(apply_gpu_peak_guard(fast, Precision::f16, ceilings, 1.25, 8192).status, Status::forbidden);
  EXPECT_EQ(apply_gpu_peak_guard(fast, Precision::f16, ceilings, 1.25, 8192, Accumulation::f16).status, Status::ok);
  fast.gflops = 260000;
  const Measurement guarded = apply_gpu_peak_guard(fast, Precision::f16, ceilings, 1.25, 8192, Accumulation::f16);
  EXPECT_EQ(guarded.status, Status::forbidden);
  EXPECT_NE(guarded.reason.find("times 2 for fp16 accumulation"), std::string::npos) << guarded.reason;
}

// cuBLAS at 8192^3 runs at the power limit; at a smaller shape it can read more (one H200: a
// ceiling of 621.6 TFLOPS at a rank start, cuBLAS 782.6 at 8192x4096x12288). The libraries at the problem's own
// shape raise the limit, so an honest kernel a little faster than cuBLAS there stays ok.
TEST(GpuPeakGuard, TheLibrariesAtTheProblemsShapeRaiseTheLimit) {
  GpuCeilings ceilings;
  ceilings.f16 = 621600;
  Measurement fast;
  fast.status = Status::ok;
  fast.gflops = 820000;  // 1.05 x cuBLAS at its shape, 1.32 x the ceiling
  EXPECT_EQ(apply_gpu_peak_guard(fast, Precision::f16, ceilings, 1.25, 8192).status, Status::forbidden);
  const Yardsticks at_shape{.cublas = 782600, .cublaslt = 770000};
  EXPECT_EQ(apply_gpu_peak_guard(fast, Precision::f16, ceilings, 1.25, 8192, Accumulation::f32, at_shape).status,
            Status::ok);
  fast.gflops = 990000;  // above 1.25 x cuBLAS at its shape
  const Measurement guarded =
      apply_gpu_peak_guard(fast, Precision::f16, ceilings, 1.25, 8192, Accumulation::f32, at_shape);
  EXPECT_EQ(guarded.status, Status::forbidden);
  EXPECT_NE(guarded.reason.find("the libraries at this problem's shape, higher: 782600 GFLOPS"), std::string::npos)
      << guarded.reason;
  // Lower libraries at the shape (a small problem) leave the ceiling's limit as it was.
  fast.gflops = 770000;  // the ceiling's limit: 1.25 x 621600 = 777000
  EXPECT_EQ(apply_gpu_peak_guard(fast, Precision::f16, ceilings, 1.25, 8192, Accumulation::f32,
                                 Yardsticks{.cublas = 90000, .cublaslt = 95000})
                .status,
            Status::ok);
  fast.gflops = 780000;
  EXPECT_EQ(apply_gpu_peak_guard(fast, Precision::f16, ceilings, 1.25, 8192, Accumulation::f32,
                                 Yardsticks{.cublas = 90000, .cublaslt = 95000})
                .status,
            Status::forbidden);
}

TEST(GpuPeakGuard, IsOffWithoutACeilingOrMargin) {
  Measurement fast;
  fast.status = Status::ok;
  fast.gflops = 1e9;
  EXPECT_EQ(apply_gpu_peak_guard(fast, Precision::f16, GpuCeilings{}, 1.25, 8192).status, Status::ok);
  EXPECT_EQ(apply_gpu_peak_guard(fast, Precision::f16, GpuCeilings{1, 1, 1}, 0, 8192).status, Status::ok);
}

TEST(CudaProblems, EveryPrecisionAndSizeWithOddCheckShapes) {
  for (const char *prefix : {"cuda-dgemm-", "cuda-sgemm-", "cuda-hgemm-"})
    for (int size : {1024, 4096, 8192}) {
      const Problem *problem = find_problem(prefix + std::to_string(size));
      ASSERT_NE(problem, nullptr) << prefix << size;
      EXPECT_EQ(problem->language, Language::cuda);
      EXPECT_GT(problem->element_tolerance, 0);
      ASSERT_EQ(problem->check_shapes.size(), 2u);
      EXPECT_EQ(problem->check_shapes[0], (Shape{size + 1, size - 1, size + 7}));
    }
  EXPECT_EQ(find_problem("cuda-hgemm-1024")->precision, Precision::f16);
  EXPECT_EQ(element_type(Precision::f16), "__half");
}

}  // namespace
}  // namespace hpcreward
