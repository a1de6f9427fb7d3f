#include "bench_node/rank/bench_cli.hpp"

#include <cctype>

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

BenchCommandLine parse(const std::vector<std::string> &arguments) {
  std::vector<const char *> argv{"hpcreward-bench"};
  for (const std::string &argument : arguments) argv.push_back(argument.c_str());
  return parse_bench_command_line(static_cast<int>(argv.size()), argv.data());
}

TEST(BenchCli, Defaults) {
  const BenchCommandLine command_line = parse({});
  const BenchOptions &o = command_line.options;
  EXPECT_FALSE(command_line.help);
  EXPECT_EQ(o.cc, "gcc");
  EXPECT_TRUE(o.work_root.empty());
  EXPECT_TRUE(o.runner.empty());
  EXPECT_EQ(o.compile_timeout_s, 30);
  EXPECT_EQ(o.run_timeout_s, 60);
  EXPECT_EQ(o.memory_limit_mb, 4096u);
  EXPECT_EQ(o.timing.warmup_s, 0.2);
  EXPECT_EQ(o.timing.min_reps, 5);
  EXPECT_EQ(o.timing.max_reps, 200);
  EXPECT_EQ(o.timing.target_rse, 0.02);
  EXPECT_EQ(o.timing.time_cap_s, 2.0);
  EXPECT_EQ(o.timing.warmup_min_s, 0.02);
  EXPECT_EQ(o.timing.warmup_calls, 3);
  EXPECT_EQ(o.timing.warmup_settle, 0.05);
  EXPECT_EQ(o.time_limit_factor, 2000);
  EXPECT_EQ(o.time_limit_floor_s, 5);
  EXPECT_EQ(o.reference_gflops_per_core, 0);  // the rank measures it
  EXPECT_FALSE(o.keep_workdir);
  EXPECT_FALSE(o.no_avx512);
}

// Two compile workers feed about 1.3 CUDA candidates a second, less than one H200 scores: by
// default a GPU rank takes one per CPU it is placed on, less two.
TEST(BenchCli, GpuCompileWorkersFollowTheRanksCpus) {
  GpuRankOptions sixteen = parse({}).options.gpu;
  EXPECT_EQ(sixteen.compile_workers, 0);
  EXPECT_EQ(sixteen.slots, 0);
  resolve_gpu_parallelism(sixteen, 16);
  EXPECT_EQ(sixteen.compile_workers, 14);
  EXPECT_EQ(sixteen.slots, 16);
  GpuRankOptions two = parse({}).options.gpu;
  resolve_gpu_parallelism(two, 2);
  EXPECT_EQ(two.compile_workers, 2);
  EXPECT_EQ(two.slots, 4);
  GpuRankOptions many = parse({}).options.gpu;
  resolve_gpu_parallelism(many, 128);
  EXPECT_EQ(many.slots, 64);
  GpuRankOptions given = parse({"--compile-workers", "3", "--gpu-slots", "9"}).options.gpu;
  resolve_gpu_parallelism(given, 16);
  EXPECT_EQ(given.compile_workers, 3);
  EXPECT_EQ(given.slots, 9);
  EXPECT_THROW(parse({"--compile-workers", "-1"}), std::exception);
}

TEST(BenchCli, NoAvx512) {
  EXPECT_TRUE(parse({"--no-avx512"}).options.no_avx512);
  // Boost wraps the help text: compare with runs of spaces and line breaks as one space.
  std::string usage;
  for (char c : bench_usage())
    if (!(std::isspace(static_cast<unsigned char>(c)) && !usage.empty() && usage.back() == ' '))
      usage += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
  EXPECT_NE(usage.find("--no-avx512"), std::string::npos);
  EXPECT_NE(usage.find("treat this rank as lacking AVX-512 (run the ladder as on a host without it)"),
            std::string::npos)
      << usage;
}

TEST(BenchCli, NullMeasurement) {
  EXPECT_FALSE(parse({}).options.null_measurement);
  EXPECT_TRUE(parse({"--null-measurement"}).options.null_measurement);
  try {
    parse({"--null-measurement", "--gpu"});
    FAIL() << "a null rank stands in for a CPU rank only";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("--null-measurement"), std::string::npos) << error.what();
  }
}

TEST(BenchCli, EveryOption) {
  const BenchOptions o = parse({"--cc", "clang", "--workdir", "/tmp/w", "--runner", "/opt/r",
                                "--compile-timeout", "5", "--run-timeout", "9", "--memory-limit-mb",
                                "512", "--warmup-s", "0.5", "--min-reps", "3", "--min-time-s", "0.25", "--max-reps", "30",
                                "--target-rse", "0.02", "--time-cap-s", "4", "--keep-workdir",
                                "--warmup-min-s", "0.05", "--warmup-calls", "4", "--warmup-settle",
                                "0.1", "--time-limit-factor", "200", "--time-limit-floor-s", "3"})
                             .options;
  EXPECT_EQ(o.cc, "clang");
  EXPECT_EQ(o.work_root, "/tmp/w");
  EXPECT_EQ(o.runner, "/opt/r");
  EXPECT_EQ(o.compile_timeout_s, 5);
  EXPECT_EQ(o.run_timeout_s, 9);
  EXPECT_EQ(o.memory_limit_mb, 512u);
  EXPECT_EQ(o.timing.warmup_s, 0.5);
  EXPECT_EQ(o.timing.min_reps, 3);
  EXPECT_EQ(o.timing.min_time_s, 0.25);
  EXPECT_EQ(o.timing.max_reps, 30);
  EXPECT_EQ(o.timing.target_rse, 0.02);
  EXPECT_EQ(o.timing.time_cap_s, 4);
  EXPECT_EQ(o.timing.warmup_min_s, 0.05);
  EXPECT_EQ(o.timing.warmup_calls, 4);
  EXPECT_EQ(o.timing.warmup_settle, 0.1);
  EXPECT_EQ(o.time_limit_factor, 200);
  EXPECT_EQ(o.time_limit_floor_s, 3);
  EXPECT_TRUE(o.keep_workdir);
}

TEST(BenchCli, RejectsNonsense) {
  EXPECT_ANY_THROW(parse({"--run-timeout", "0"}));
  EXPECT_ANY_THROW(parse({"--min-reps", "10", "--max-reps", "5"}));
  EXPECT_ANY_THROW(parse({"--no-such-option"}));
  EXPECT_ANY_THROW(parse({"--target-rse", "-1"}));
  EXPECT_ANY_THROW(parse({"--min-time-s", "3", "--time-cap-s", "2"}));
  EXPECT_ANY_THROW(parse({"--warmup-calls", "0"}));
  EXPECT_ANY_THROW(parse({"--warmup-settle", "-0.1"}));
  EXPECT_ANY_THROW(parse({"--warmup-min-s", "-1"}));
  EXPECT_ANY_THROW(parse({"--time-limit-factor", "2"}));  // would time out honest code
  EXPECT_ANY_THROW(parse({"--time-limit-floor-s", "0"}));
  EXPECT_EQ(parse({"--time-limit-factor", "0"}).options.time_limit_factor, 0);
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_NE(bench_usage().find("--keep-workdir"), std::string::npos);
}

TEST(BenchCli, GpuHostMemoryLimit) {
  EXPECT_EQ(parse({}).options.gpu.host_memory_mb, 16384u);
  EXPECT_EQ(parse({"--gpu", "--gpu-host-memory-mb", "4096"}).options.gpu.host_memory_mb, 4096u);
  EXPECT_ANY_THROW(parse({"--gpu", "--gpu-host-memory-mb", "512"}));  // below a context and cuBLAS
  EXPECT_NE(bench_usage().find("--gpu-host-memory-mb"), std::string::npos);
}

// CUDA accepts 1 to 32 work queues; outside that the driver would quietly use its own number.
TEST(BenchCli, GpuWorkQueues) {
  EXPECT_EQ(parse({}).options.gpu.connections, 4);
  EXPECT_EQ(parse({"--gpu", "--gpu-connections", "8"}).options.gpu.connections, 8);
  EXPECT_ANY_THROW(parse({"--gpu", "--gpu-connections", "0"}));
  EXPECT_ANY_THROW(parse({"--gpu", "--gpu-connections", "33"}));
  EXPECT_NE(bench_usage().find("--gpu-connections"), std::string::npos);
}

TEST(BenchCli, GpuSetUpTurns) {
  EXPECT_EQ(parse({}).options.gpu.setup_turns, "auto");
  EXPECT_EQ(parse({"--gpu", "--gpu-setup-turns", "0"}).options.gpu.setup_turns, "0");
  EXPECT_EQ(parse({"--gpu", "--gpu-setup-turns", "1"}).options.gpu.setup_turns, "1");
  EXPECT_ANY_THROW(parse({"--gpu", "--gpu-setup-turns", "yes"}));
  EXPECT_NE(bench_usage().find("--gpu-setup-turns"), std::string::npos);
}

TEST(BenchCli, TaskTimeLimitIsTheCompileAndRunLimits) {
  // What the rank reports in its hello; the coordinator adds its margin for the deadline.
  EXPECT_EQ(task_time_limit_s(parse({}).options), 30 + 60 + kTaskCheckAllowanceS);
  EXPECT_EQ(task_time_limit_s(parse({"--compile-timeout", "5", "--run-timeout", "4"}).options),
            5 + 4 + kTaskCheckAllowanceS);
  EXPECT_EQ(task_time_limit_s(parse({"--gpu"}).options), 300 + 180);
  EXPECT_EQ(task_time_limit_s(parse({"--gpu", "--gpu-compile-timeout", "20", "--gpu-run-timeout", "30",
                                      "--compile-timeout", "999"}).options),
            50);
}

}  // namespace
}  // namespace hpcreward
