#include "bench_node/cpu/runner_args.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "bench_node/process/result_envelope.hpp"

namespace hpcreward {
namespace {

RunnerArgs parse(const std::vector<std::string> &arguments) {
  std::vector<const char *> argv{"hpcreward-runner"};
  for (const std::string &argument : arguments) argv.push_back(argument.c_str());
  return parse_runner_args(static_cast<int>(argv.size()), argv.data());
}

TEST(RunnerArgs, RoundTripsExactly) {
  RunnerArgs args;
  args.object_path = "/tmp/x/cand.so";
  args.precision = Precision::f32;
  args.layout = {.transpose_a = true, .batched = true};
  args.nominal = {256, 255, 254, 9};
  args.check_shapes = {{257, 255, 263, 3}, {31, 17, 23, 2}};
  args.tolerance = 1e-10 / 3;
  args.timing.warmup_s = 0.125;
  args.timing.min_reps = 7;
  args.timing.min_time_s = 0.375;
  args.timing.max_reps = 99;
  args.timing.target_rse = 0.005;
  args.timing.time_cap_s = 1.5;
  args.timing.warmup_min_s = 0.0625;
  args.timing.warmup_calls = 6;
  args.timing.warmup_settle = 0.03125;
  args.check_threads = 4;
  const RunnerArgs back = parse(to_arguments(args));
  EXPECT_EQ(back.object_path, args.object_path);
  EXPECT_EQ(back.precision, Precision::f32);
  EXPECT_EQ(back.layout, args.layout);
  EXPECT_EQ(back.nominal, args.nominal);
  EXPECT_EQ(back.check_shapes, args.check_shapes);
  EXPECT_EQ(back.tolerance, args.tolerance);
  EXPECT_EQ(back.timing.warmup_s, 0.125);
  EXPECT_EQ(back.timing.min_reps, 7);
  EXPECT_EQ(back.timing.min_time_s, 0.375);
  EXPECT_EQ(back.timing.max_reps, 99);
  EXPECT_EQ(back.timing.target_rse, 0.005);
  EXPECT_EQ(back.timing.time_cap_s, 1.5);
  EXPECT_EQ(back.timing.warmup_min_s, 0.0625);
  EXPECT_EQ(back.timing.warmup_calls, 6);
  EXPECT_EQ(back.timing.warmup_settle, 0.03125);
  EXPECT_EQ(back.result_fd, 3);
  EXPECT_EQ(back.token_fd, 4);
  EXPECT_EQ(back.check_threads, 4);
  args.check_threads = 0;
  EXPECT_EQ(parse(to_arguments(args)).check_threads, 0);
}

// A GPU f16 problem's accumulation reaches the runner (its timed residual bound) from the task's
// problem; fp32 accumulation, the default, adds nothing to the command line.
TEST(RunnerArgs, TheAccumulationOfAnF16ProblemTravels) {
  Problem problem;
  problem.precision = Precision::f16;
  problem.language = Language::cuda;
  problem.nominal = {64, 64, 1024};
  problem.accumulation = Accumulation::f16;
  const RunnerArgs args = runner_args_for("/tmp/x/cand.so", problem, TimingOptions{});
  EXPECT_EQ(args.accumulation, Accumulation::f16);
  const std::vector<std::string> arguments = to_arguments(args);
  EXPECT_NE(std::find(arguments.begin(), arguments.end(), "--accumulation"), arguments.end());
  EXPECT_EQ(parse(arguments).accumulation, Accumulation::f16);
  problem.accumulation = Accumulation::f32;
  const std::vector<std::string> plain = to_arguments(runner_args_for("/tmp/x/cand.so", problem, TimingOptions{}));
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "--accumulation"), plain.end());
  EXPECT_EQ(parse(plain).accumulation, Accumulation::f32);
  std::vector<std::string> bad = plain;
  bad.insert(bad.end(), {"--accumulation", "f8"});
  EXPECT_THROW(parse(bad), std::invalid_argument);
}

// The full checks of an OpenMP stage run with a few threads however small the share; other
// stages, and shares that are few threads already, check as they time.
TEST(RunnerArgs, ChecksOfAnOpenMPStageRunWithAFewThreads) {
  const std::vector<std::string> openmp = {"-O3", "-fopenmp"};
  EXPECT_EQ(check_threads_for(1, openmp), kFewestCheckThreads);
  EXPECT_EQ(check_threads_for(kFewestCheckThreads - 1, openmp), kFewestCheckThreads);
  EXPECT_EQ(check_threads_for(kFewestCheckThreads, openmp), 0);
  EXPECT_EQ(check_threads_for(16, openmp), 0);
  EXPECT_EQ(check_threads_for(1, {"-O3"}), 0);
  EXPECT_EQ(check_threads_for(1, {"-O3", "-pthread"}), 0);  // its threads are its own to count
  EXPECT_EQ(check_threads_for(1, {"-O3", "-fopenmp-simd"}), 0);
}

TEST(RunnerArgs, RejectsBadShapesAndMissingOptions) {
  RunnerArgs args;
  args.object_path = "x.so";
  args.nominal = {4, 4, 4};
  std::vector<std::string> arguments = to_arguments(args);
  arguments.push_back("--check");
  arguments.push_back("4x0x4");
  EXPECT_ANY_THROW(parse(arguments));
  EXPECT_ANY_THROW(parse({"--object", "x.so"}));
}

TEST(ResultEnvelope, RoundTripsAndRejectsTrailingGarbage) {
  Measurement m;
  m.status = Status::ok;
  m.gflops = 3.5;
  m.reps = 9;
  const std::string text = encode_result("abc", m);
  const auto decoded = decode_result(text);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->token, "abc");
  EXPECT_EQ(decoded->measurement.gflops, 3.5);
  EXPECT_EQ(decoded->measurement.reps, 9);
  EXPECT_FALSE(decode_result(text + text).has_value());
  EXPECT_FALSE(decode_result("garbage" + text).has_value());
  EXPECT_FALSE(decode_result("").has_value());
  EXPECT_EQ(make_token().size(), 32u);
  EXPECT_NE(make_token(), make_token());
}

}  // namespace
}  // namespace hpcreward
