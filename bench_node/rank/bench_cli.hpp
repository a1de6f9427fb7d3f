#pragma once
// hpcreward-bench's command line (Boost.Program_options).
#include <filesystem>
#include <string>

#include "bench_node/rank/bench_options.hpp"

namespace hpcreward {

struct BenchCommandLine {
  BenchOptions options;  // runner and work_root left empty when not given
  bool help = false;
};

// Throws std::invalid_argument or a Boost.Program_options error on a bad command line.
BenchCommandLine parse_bench_command_line(int argc, const char *const *argv);
std::string bench_usage();
// A GPU rank's compile workers and slots where the command line left them 0 (automatic), once
// its CPUs are known: workers one per CPU less two, at least 2; slots workers + 2, at most 64.
void resolve_gpu_parallelism(GpuRankOptions &gpu, std::size_t rank_cpus);

// Seconds a C task may take beyond its compile and run limits: source checks, object audit,
// technique detection, its directory.
inline constexpr double kTaskCheckAllowanceS = 10;
// The most wall-clock seconds one task can take on a rank with these options: a CPU rank's
// --compile-timeout + --run-timeout + kTaskCheckAllowanceS; a GPU rank's (--gpu)
// --gpu-compile-timeout + --gpu-run-timeout. Sent in the rank's hello (RankInfo::task_limit_s):
// the coordinator's liveness deadline for the rank is this plus its --rank-deadline-margin-s.
double task_time_limit_s(const BenchOptions &options);

// <directory of /proc/self/exe>/<name> (hpcreward-runner, or hpcreward-gpu-runner)
std::filesystem::path runner_next_to_executable(const std::string &name = "hpcreward-runner");

}  // namespace hpcreward
