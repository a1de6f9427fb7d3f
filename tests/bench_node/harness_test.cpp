// The harness in this process, on well-behaved functions written here (hostile candidates
// only ever run through the sandbox: score_task_test.cpp).
#include "bench_node/cpu/harness.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "bench_node/process/result_envelope.hpp"

namespace hpcreward {
namespace {

template <typename T>
void ikj(int m, int n, int k, const T *a, const T *b, T *c) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) c[i * n + j] = 0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
  }
}

void half_k(int m, int n, int k, const double *a, const double *b, double *c) {
  ikj(m, n, k / 2 > 0 ? k / 2 : 1, a, b, c);  // wrong leading dimension too: garbage
}

int calls_until_wrong = 0;
void wrong_on_a_later_call(int m, int n, int k, const double *a, const double *b, double *c) {
  ikj(m, n, k, a, b, c);
  if (--calls_until_wrong == 0) c[(m - 1) * n + (n - 1)] += 1e-3;  // one element, once
}

// Correct except that C's last row is huge but finite (as a read past A would make it) from
// call `huge_from` on: the full checks or, later, the residual check of every output.
int huge_from = 1;
double huge_value = 1e300;
void huge_last_row(int m, int n, int k, const double *a, const double *b, double *c) {
  ikj(m, n, k, a, b, c);
  if (--huge_from <= 0)
    for (int j = 0; j < n; ++j) c[(m - 1) * n + j] = huge_value;
}

HarnessConfig config() {
  HarnessConfig config;
  config.nominal = {32, 32, 32};
  config.check_shapes = {{33, 35, 37}, {5, 3, 7}};
  config.tolerance = 1e-10;
  config.timing.warmup_s = 0.001;
  config.timing.time_cap_s = 0.05;
  config.timing.min_reps = 5;
  config.timing.max_reps = 50;
  return config;
}

TEST(Harness, CorrectDoubleIsTimed) {
  const Measurement m = run_harness<double>(&ikj<double>, config());
  EXPECT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_GE(m.reps, 5);
  EXPECT_LE(m.reps, 50);
  EXPECT_GT(m.median_s, 0);
  EXPECT_LE(m.min_s, m.median_s);
  EXPECT_GE(m.iqr_s, 0);
  EXPECT_GT(m.gflops, 0);
  EXPECT_NEAR(m.gflops, 2.0 * 32 * 32 * 32 / m.median_s / 1e9, 1e-9);
  EXPECT_LT(m.max_error, 1e-14);
  EXPECT_GT(m.verify_s, 0);
  EXPECT_GT(m.time_s, 0);
}

TEST(Harness, CorrectFloatIsTimed) {
  HarnessConfig c = config();
  c.tolerance = 1e-4;
  const Measurement m = run_harness<float>(&ikj<float>, c);
  EXPECT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_GT(m.max_error, 0);
  EXPECT_LT(m.max_error, 1e-5);
}

TEST(Harness, WrongAtTheNominalShape) {
  const Measurement m = run_harness<double>(&half_k, config());
  EXPECT_EQ(m.status, Status::wrong_answer);
  EXPECT_NE(m.reason.find("32x32x32"), std::string::npos) << m.reason;
}

TEST(Harness, EveryWarmupAndTimedOutputIsChecked) {
  // 6 verification calls (2 per shape), then warm-up and timed calls: break the 13th call,
  // then the 7th.
  for (int broken : {13, 7}) {
    calls_until_wrong = broken;
    HarnessConfig c = config();
    c.timing.warmup_s = 0;  // one warm-up call, so the 13th call is a timed one
    c.timing.min_reps = 10;
    const Measurement m = run_harness<double>(&wrong_on_a_later_call, c);
    EXPECT_EQ(m.status, Status::wrong_answer);
    const char *expected = broken == 13 ? "timed call 6 gave a wrong result" : "warm-up call 1 gave a wrong result";
    EXPECT_NE(m.reason.find(expected), std::string::npos) << m.reason;
  }
}

TEST(Harness, WrongOnlyOnACheckShapeNamesIt) {
  calls_until_wrong = 3;  // the first check shape
  const Measurement m = run_harness<double>(&wrong_on_a_later_call, config());
  EXPECT_EQ(m.status, Status::wrong_answer);
  EXPECT_NE(m.reason.find("33x35x37"), std::string::npos) << m.reason;
  EXPECT_NE(m.reason.find("most wrong at C[32][34]: "), std::string::npos) << "the one element changed: " << m.reason;
}

// Replays the first result it computed for a given output pointer.
const double *remembered_c = nullptr;
void replays_by_pointer(int m, int n, int k, const double *a, const double *b, double *c) {
  if (c == remembered_c) return;  // the NaN poison stays, or the old values would
  ikj(m, n, k, a, b, c);
  remembered_c = c;
}

TEST(Harness, PointerKeyedCacheIsCaughtBeforeTiming) {
  remembered_c = nullptr;
  HarnessConfig c = config();
  c.timing.min_reps = 1;  // whatever the timing loop does, verification alone catches it
  const Measurement m = run_harness<double>(&replays_by_pointer, c);
  EXPECT_EQ(m.status, Status::wrong_answer);
  EXPECT_NE(m.reason.find("same buffers, new values"), std::string::npos) << m.reason;
}

// A wrong value of any magnitude is a wrong answer that names its element, and the
// measurement (its error too) goes through the result channel.
TEST(Harness, HugeOrInfiniteValuesAreWrongAnswersNamingTheElement) {
  const double max = std::numeric_limits<double>::max(), inf = std::numeric_limits<double>::infinity();
  // At call 1: the full checks; at call 8: a warm-up call (6 full-check calls come first).
  for (int from : {1, 8}) {
    for (double value : {1e300, max, -max, inf, std::numeric_limits<double>::quiet_NaN()}) {
      huge_from = from;
      huge_value = value;
      const Measurement m = run_harness<double>(&huge_last_row, config());
      EXPECT_EQ(m.status, Status::wrong_answer) << from << " " << value << ": " << m.reason;
      EXPECT_NE(m.reason.find("C[31]["), std::string::npos) << m.reason;
      EXPECT_NE(m.reason.find("instead of"), std::string::npos) << m.reason;
      const std::optional<DecodedResult> decoded = decode_result(encode_result("t", m));
      ASSERT_TRUE(decoded) << m.reason;
      EXPECT_EQ(decoded->measurement.reason, m.reason);
      if (from == 1) {
        EXPECT_FALSE(decoded->measurement.max_error <= 1e-10) << decoded->measurement.max_error;
      }
    }
  }
}

}  // namespace
}  // namespace hpcreward
