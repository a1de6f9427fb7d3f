#include "bench_node/measure/statistics.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

TEST(Statistics, MedianOfOddAndEvenCounts) {
  const std::vector<double> odd = {5, 1, 3};
  EXPECT_DOUBLE_EQ(summarize(odd).median, 3);
  const std::vector<double> even = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(summarize(even).median, 2.5);
}

TEST(Statistics, QuartilesInterpolateBetweenOrderStatistics) {
  const std::vector<double> values = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const SampleSummary summary = summarize(values);
  EXPECT_DOUBLE_EQ(summary.q1, 3);
  EXPECT_DOUBLE_EQ(summary.q3, 7);
  EXPECT_DOUBLE_EQ(summary.iqr(), 4);
  EXPECT_DOUBLE_EQ(summary.min, 1);
  EXPECT_DOUBLE_EQ(summary.max, 9);
  EXPECT_DOUBLE_EQ(quantile(std::vector<double>{10, 20}, 0.25), 12.5);
  EXPECT_TRUE(std::isnan(quantile(std::vector<double>{}, 0.5)));
}

TEST(Statistics, MeanStddevCvAndRse) {
  const std::vector<double> values = {2, 4, 4, 4, 5, 5, 7, 9};
  const SampleSummary summary = summarize(values);
  EXPECT_DOUBLE_EQ(summary.mean, 5);
  EXPECT_NEAR(summary.stddev, std::sqrt(32.0 / 7.0), 1e-12);  // sample (n - 1)
  EXPECT_NEAR(summary.cv(), std::sqrt(32.0 / 7.0) / 5, 1e-12);
  EXPECT_NEAR(summary.rse(), std::sqrt(32.0 / 7.0) / std::sqrt(8.0) / 5, 1e-12);
}

TEST(Statistics, SingleSampleHasNoSpreadAndInfiniteRse) {
  const SampleSummary summary = summarize(std::vector<double>{0.5});
  EXPECT_EQ(summary.count, 1);
  EXPECT_DOUBLE_EQ(summary.median, 0.5);
  EXPECT_DOUBLE_EQ(summary.stddev, 0);
  EXPECT_TRUE(std::isinf(summary.rse()));
}

TimingOptions options() {
  TimingOptions timing;
  timing.min_reps = 5;
  timing.max_reps = 20;
  timing.target_rse = 0.01;
  timing.time_cap_s = 2.0;
  return timing;
}

TEST(StoppingRule, WaitsForMinRepsEvenWhenSteady) {
  const StoppingRule rule(options());
  std::vector<double> samples = {1, 1, 1, 1};
  EXPECT_FALSE(rule.done(samples, 0.1));
  samples.push_back(1);
  EXPECT_TRUE(rule.done(samples, 0.1));  // RSE 0 < 1%
}

TEST(StoppingRule, WaitsForTheLeastTimeEvenWhenSteady) {
  TimingOptions timing = options();
  timing.min_time_s = 0.5;
  const StoppingRule rule(timing);
  const std::vector<double> steady(6, 1.0);
  EXPECT_FALSE(rule.done(steady, 0.4));
  EXPECT_TRUE(rule.done(steady, 0.5));
  EXPECT_TRUE(rule.done(std::vector<double>(20, 1.0), 0.1)) << "max_reps still ends it";
}

TEST(StoppingRule, WaitsForTheCallersMinRepsButNotPastTheCaps) {
  const StoppingRule rule(options());
  EXPECT_FALSE(rule.done(std::vector<double>(9, 1.0), 0.1, 10)) << "a steady nine of ten asked";
  EXPECT_TRUE(rule.done(std::vector<double>(10, 1.0), 0.1, 10));
  EXPECT_TRUE(rule.done(std::vector<double>(20, 1.0), 0.1, 64)) << "max_reps still ends it";
  EXPECT_TRUE(rule.done(std::vector<double>(9, 1.0), 2.0, 64)) << "and the time cap";
}

TEST(StoppingRule, KeepsGoingWhileNoisy) {
  const StoppingRule rule(options());
  const std::vector<double> noisy = {1, 2, 1, 2, 1, 2};
  EXPECT_FALSE(rule.done(noisy, 0.1));
}

TEST(StoppingRule, StopsAtTheTimeCapOrMaxReps) {
  const StoppingRule rule(options());
  const std::vector<double> noisy = {1, 2, 1};
  EXPECT_TRUE(rule.done(noisy, 2.0));
  EXPECT_FALSE(rule.done(std::vector<double>{}, 5.0));  // at least one timed call
  std::vector<double> many(20);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = 1.0 + (i % 2);
  EXPECT_TRUE(rule.done(many, 0.1));
}

TEST(StoppingRule, StopsOnceRseFallsBelowTarget) {
  const StoppingRule rule(options());
  std::vector<double> samples = {1.00, 1.02, 0.98, 1.01, 0.99};
  EXPECT_LT(summarize(samples).median_rse(), 0.01);
  EXPECT_TRUE(rule.done(samples, 0.5));
}

TEST(StoppingRule, OneOutlierDoesNotKeepItTiming) {
  // The mean's error explodes with one slow call (a preemption); the median's does not.
  const StoppingRule rule(options());
  std::vector<double> samples = {1.00, 1.005, 0.995, 1.0, 1.002, 0.998, 1.001, 9.0};
  EXPECT_GT(summarize(samples).rse(), 0.01);
  EXPECT_LT(summarize(samples).median_rse(), 0.01);
  EXPECT_TRUE(rule.done(samples, 0.5));
}

TEST(SampleSummary, MedianRseFollowsTheIqr) {
  std::vector<double> samples = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // q1 3, q3 7, median 5
  EXPECT_NEAR(summarize(samples).median_rse(), 1.2533 * (4 / 1.349) / 3 / 5, 1e-12);
  EXPECT_TRUE(std::isinf(summarize(std::vector<double>{1.0}).median_rse()));
}

TimingOptions warmup_options() {
  TimingOptions timing;
  timing.warmup_s = 0.2;
  timing.warmup_min_s = 0.02;
  timing.warmup_calls = 3;
  timing.warmup_settle = 0.05;
  return timing;
}

TEST(WarmupRule, EndsOnceTheLastCallsAgree) {
  const WarmupRule rule(warmup_options());
  // Cold first calls, then three within 5% of each other.
  const std::vector<double> calls = {0.010, 0.006, 0.0040, 0.0041, 0.0042};
  EXPECT_TRUE(rule.done(calls, 0.03));
  EXPECT_FALSE(rule.done(std::span(calls).first(4), 0.03));  // 6 ms vs 4 ms: not yet
}

TEST(WarmupRule, WaitsForTheLeastTimeAndCalls) {
  const WarmupRule rule(warmup_options());
  const std::vector<double> steady = {0.001, 0.001, 0.001};
  EXPECT_FALSE(rule.done(steady, 0.01));                       // under warmup_min_s
  EXPECT_TRUE(rule.done(steady, 0.02));
  EXPECT_FALSE(rule.done(std::span(steady).first(2), 0.05));  // fewer than warmup_calls
}

TEST(WarmupRule, UnsettledCallsRunToTheCap) {
  const WarmupRule rule(warmup_options());
  // A candidate that alternates (or runs slow while warming up) never settles.
  const std::vector<double> alternating = {0.01, 0.02, 0.01, 0.02, 0.01, 0.02};
  EXPECT_FALSE(rule.done(alternating, 0.19));
  EXPECT_TRUE(rule.done(alternating, 0.2));
  EXPECT_FALSE(rule.done(std::vector<double>{}, 1.0));  // at least one call
  EXPECT_TRUE(rule.done(std::vector<double>{5.0}, 5.0));  // one call past the cap suffices
}

TEST(WarmupRule, SettleZeroIsTheFixedWarmup) {
  TimingOptions timing = warmup_options();
  timing.warmup_settle = 0;
  const WarmupRule rule(timing);
  const std::vector<double> steady(50, 0.001);
  EXPECT_FALSE(rule.done(steady, 0.199));
  EXPECT_TRUE(rule.done(steady, 0.2));
}

}  // namespace
}  // namespace hpcreward
