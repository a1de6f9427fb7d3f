#include "bench_node/peak_guard.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

Measurement ok_at(double gflops) {
  Measurement m;
  m.status = Status::ok;
  m.gflops = gflops;
  return m;
}

TEST(PeakGuard, ResultsAboveMarginTimesPeakAreForbidden) {
  const PeakGflops peak{40, 80};
  Measurement guarded = apply_peak_guard(ok_at(51), Precision::f64, peak, 1.25);
  EXPECT_EQ(guarded.status, Status::forbidden);
  EXPECT_NE(guarded.reason.find("above this rank's measured peak"), std::string::npos);
  EXPECT_NE(guarded.reason.find("dgemm"), std::string::npos);
}

TEST(PeakGuard, ResultsWithinTheMarginAndOtherPrecisionsPass) {
  const PeakGflops peak{40, 80};
  EXPECT_EQ(apply_peak_guard(ok_at(49), Precision::f64, peak, 1.25).status, Status::ok);
  EXPECT_EQ(apply_peak_guard(ok_at(99), Precision::f32, peak, 1.25).status, Status::ok);
  EXPECT_EQ(apply_peak_guard(ok_at(101), Precision::f32, peak, 1.25).status, Status::forbidden);
}

TEST(PeakGuard, FailuresAndAnUnmeasuredPeakAreUntouched) {
  Measurement wrong = ok_at(1e9);
  wrong.status = Status::wrong_answer;
  EXPECT_EQ(apply_peak_guard(wrong, Precision::f64, {40, 80}, 1.25).status, Status::wrong_answer);
  EXPECT_EQ(apply_peak_guard(ok_at(1e9), Precision::f64, {}, 1.25).status, Status::ok);
  EXPECT_EQ(apply_peak_guard(ok_at(1e9), Precision::f64, {40, 80}, 0).status, Status::ok);
}

TEST(PeakGuard, MeasuredPeakIsPlausible) {
  const PeakGflops peak = measure_blas_peak(1);
  EXPECT_GT(peak.f64, 0.1);
  EXPECT_GT(peak.f32, peak.f64 * 0.8) << "single precision is not slower than double";
}

}  // namespace
}  // namespace hpcreward
