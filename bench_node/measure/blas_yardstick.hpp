#pragma once
// A CPU rank's yardstick for a problem (common/yardsticks.hpp): OpenBLAS at the problem's own
// shape, layout and batch, with the rank's threads, timed as the harness times a candidate
// (fresh buffer sets in rotation, the median of the timed calls), once per rank and problem.
#include <map>
#include <string>

#include "common/problem.hpp"
#include "common/yardsticks.hpp"

namespace hpcreward {

// GFLOPS of OpenBLAS's dgemm/sgemm (one call per product of a batch, transposes by its own
// flags) at `problem`'s nominal shape, with `threads` threads. C problems only (f64, f32).
double openblas_gflops(const Problem &problem, int threads);

// The rank's yardsticks by problem, each measured the first time a task names the problem
// (between tasks: no candidate runs beside it).
class CpuYardsticks {
 public:
  // `log_prefix` starts the line each measurement prints ("[bench 3] ").
  CpuYardsticks(int threads, std::string log_prefix) : threads_(threads), log_prefix_(std::move(log_prefix)) {}
  const Yardsticks &of(const Problem &problem);

 private:
  int threads_;
  std::string log_prefix_;
  std::map<std::string, Yardsticks> measured_;  // by problem id (one catalog per run)
};

}  // namespace hpcreward
