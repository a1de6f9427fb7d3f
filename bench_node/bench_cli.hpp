#pragma once
// hpcreward-bench's command line (Boost.Program_options).
#include <filesystem>
#include <string>

#include "bench_node/bench_options.hpp"

namespace hpcreward {

struct BenchCommandLine {
  BenchOptions options;  // runner and work_root left empty when not given
  bool help = false;
};

// Throws std::invalid_argument or a Boost.Program_options error on a bad command line.
BenchCommandLine parse_bench_command_line(int argc, const char *const *argv);
std::string bench_usage();

// <directory of /proc/self/exe>/<name> (hpcreward-runner, or hpcreward-gpu-runner)
std::filesystem::path runner_next_to_executable(const std::string &name = "hpcreward-runner");

}  // namespace hpcreward
