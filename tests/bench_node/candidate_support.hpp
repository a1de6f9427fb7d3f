#pragma once
// What the suites that score real candidates share: the candidates in
// tests/bench_node/candidates (HPCREWARD_CANDIDATES_DIR) and a small problem.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "common/problem.hpp"

namespace hpcreward {

inline std::string candidate(const std::string &name) {
  std::ifstream in(std::string(HPCREWARD_CANDIDATES_DIR) + "/" + name);
  EXPECT_TRUE(in) << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline Problem small_problem(Precision precision = Precision::f64) {
  Problem problem;
  problem.id = precision == Precision::f64 ? "test-dgemm-64" : "test-sgemm-64";
  problem.precision = precision;
  problem.nominal = {64, 64, 64};
  // Larger than nominal in every dimension (so code hard-wired to 64 stays in bounds and is
  // caught by its result), then small and odd.
  problem.check_shapes = {{67, 65, 71}, {31, 17, 23}};
  problem.tolerance = precision == Precision::f64 ? 1e-10 : 1e-4;
  return problem;
}

}  // namespace hpcreward
