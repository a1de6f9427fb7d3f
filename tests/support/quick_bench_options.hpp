#pragma once
// Benchmark-rank options for tests that score real candidates: the built runner, a private
// work root, and short timing so a suite of candidates runs in seconds on 2 cores.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "bench_node/rank/bench_options.hpp"

namespace hpcreward {

inline BenchOptions quick_bench_options(const std::string &runner, const std::string &name) {
  BenchOptions options;
  options.runner = runner;
  options.work_root = std::filesystem::path(::testing::TempDir()) /
                      (name + "-" + std::to_string(::getpid()));
  options.run_timeout_s = 20;
  options.compile_timeout_s = 20;
  options.timing.warmup_s = 0.01;
  options.timing.time_cap_s = 0.2;
  options.timing.min_reps = 5;
  options.timing.max_reps = 200;
  return options;
}

}  // namespace hpcreward
