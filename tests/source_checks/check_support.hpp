#pragma once
// Candidates for the source checks' tests, and one SourceChecks per test process.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "bench_node/source_checks/source_checks.hpp"
#include "common/problem_catalog.hpp"

namespace hpcreward::source_checks_test {

inline const std::string kSignature =
    "void matmul(int m, int n, int k, const double *A, const double *B, double *C)";
// A correct body (ijk), to put after kSignature.
inline const std::string kBody =
    " {\n"
    "  for (int i = 0; i < m; ++i)\n"
    "    for (int j = 0; j < n; ++j) {\n"
    "      double s = 0;\n"
    "      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];\n"
    "      C[i * n + j] = s;\n"
    "    }\n"
    "}\n";
inline const std::string kMatmul = kSignature + kBody;

inline const std::vector<std::string> kO3 = {"-O3"};
inline const std::vector<std::string> kOpenMp = {"-O3", "-fopenmp"};
// AVX-512 named explicitly: the tests must not depend on the machine's -march=native.
inline const std::vector<std::string> kAvx512 = {"-O3",        "-fopenmp",   "-mavx512f",
                                                 "-mavx512dq", "-mavx512vl", "-mfma"};

inline BenchTask task(std::string source, std::vector<std::string> flags = kO3,
                      const std::string &problem = "dgemm-256") {
  BenchTask t;
  t.candidate_id = "test";
  t.problem = *find_problem(problem);
  t.stage = "test";
  t.compiler_flags = std::move(flags);
  t.source = std::move(source);
  return t;
}

// As a rank runs them: the child also reads the techniques of every passing candidate.
inline SourceChecks &checks() {
  static SourceChecks instance([] {
    SourceCheckOptions options;
    options.technique_memo = std::make_shared<source_checks::SourceTechniqueMemo>();
    return options;
  }());
  return instance;
}

inline Verdict check(const std::string &source, const std::vector<std::string> &flags = kO3,
                     const std::string &problem = "dgemm-256") {
  return checks().check_source(task(source, flags, problem));
}

#define EXPECT_PASSES(source, ...)                                                    \
  do {                                                                                \
    const ::hpcreward::Verdict verdict_ =                                             \
        ::hpcreward::source_checks_test::check(source __VA_OPT__(, ) __VA_ARGS__);    \
    EXPECT_TRUE(verdict_.ok()) << "refused: " << verdict_.reason << "\n" << (source); \
  } while (0)

#define EXPECT_REFUSED(source, status_, part, ...)                                      \
  do {                                                                                  \
    const ::hpcreward::Verdict verdict_ =                                               \
        ::hpcreward::source_checks_test::check(source __VA_OPT__(, ) __VA_ARGS__);      \
    EXPECT_EQ(verdict_.status, ::hpcreward::Status::status_) << verdict_.reason << "\n" \
                                                             << (source);               \
    EXPECT_NE(verdict_.reason.find(part), std::string::npos)                            \
        << "reason: " << verdict_.reason << "\n"                                        \
        << (source);                                                                    \
  } while (0)

}  // namespace hpcreward::source_checks_test
