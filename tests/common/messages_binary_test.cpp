#include "common/messages_binary.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "tests/common/message_samples.hpp"

namespace hpcreward {
namespace {

void expect_same_task(const BenchTask &a, const BenchTask &b) {
  EXPECT_EQ(a.sequence, b.sequence);
  EXPECT_EQ(a.candidate_id, b.candidate_id);
  EXPECT_EQ(a.problem.id, b.problem.id);
  EXPECT_EQ(a.problem.precision, b.problem.precision);
  EXPECT_EQ(a.problem.language, b.problem.language);
  EXPECT_EQ(a.problem.layout, b.problem.layout);
  EXPECT_EQ(a.problem.nominal, b.problem.nominal);
  EXPECT_EQ(a.problem.check_shapes, b.problem.check_shapes);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.problem.tolerance), std::bit_cast<std::uint64_t>(b.problem.tolerance));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.problem.element_tolerance),
            std::bit_cast<std::uint64_t>(b.problem.element_tolerance));
  EXPECT_EQ(a.problem.accumulation, b.problem.accumulation);
  EXPECT_EQ(a.stage, b.stage);
  EXPECT_EQ(a.compiler_flags, b.compiler_flags);
  EXPECT_EQ(a.techniques_allowed, b.techniques_allowed);
  EXPECT_EQ(a.techniques_required, b.techniques_required);
  EXPECT_EQ(a.libraries, b.libraries);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.seed, b.seed);
}

// Doubles compared by their bits: NaN == NaN here, and -0 differs from 0.
void expect_same_double(double a, double b, const char *field) {
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a), std::bit_cast<std::uint64_t>(b)) << field << ": " << a << " vs " << b;
}

void expect_same_result(const BenchResult &a, const BenchResult &b) {
  EXPECT_EQ(a.sequence, b.sequence);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.host, b.host);
  EXPECT_EQ(a.device, b.device);
  const Measurement &x = a.measurement, &y = b.measurement;
  EXPECT_EQ(x.status, y.status);
  EXPECT_EQ(x.reason, y.reason);
  expect_same_double(x.gflops, y.gflops, "gflops");
  expect_same_double(x.median_s, y.median_s, "median_s");
  expect_same_double(x.min_s, y.min_s, "min_s");
  expect_same_double(x.iqr_s, y.iqr_s, "iqr_s");
  expect_same_double(x.cv, y.cv, "cv");
  EXPECT_EQ(x.reps, y.reps);
  expect_same_double(x.max_error, y.max_error, "max_error");
  expect_same_double(x.compile_s, y.compile_s, "compile_s");
  expect_same_double(x.verify_s, y.verify_s, "verify_s");
  expect_same_double(x.time_s, y.time_s, "time_s");
  EXPECT_EQ(x.techniques, y.techniques);
  expect_same_double(x.yardsticks.openblas, y.yardsticks.openblas, "yardstick openblas");
  expect_same_double(x.yardsticks.cublas, y.yardsticks.cublas, "yardstick cublas");
  expect_same_double(x.yardsticks.cublaslt, y.yardsticks.cublaslt, "yardstick cublaslt");
}

TEST(MessagesBinary, TaskRoundTripsEveryField) {
  const BenchTask task = test::full_task();
  expect_same_task(decode_task(encode_task(task)), task);
}

TEST(MessagesBinary, DefaultTaskWithEmptyStringsAndListsRoundTrips) {
  const BenchTask task;  // every string and list empty
  const BenchTask back = decode_task(encode_task(task));
  expect_same_task(back, task);
  EXPECT_TRUE(back.source.empty());
  EXPECT_TRUE(back.problem.check_shapes.empty());
}

TEST(MessagesBinary, LongSourceWithEveryByteValueRoundTrips) {
  BenchTask task = test::full_task();
  task.source.clear();
  for (int i = 0; i < (4 << 20); ++i) task.source += static_cast<char>(i * 131 % 256);  // 4 MiB, zeros included
  const std::string bytes = encode_task(task);
  EXPECT_GT(bytes.size(), task.source.size());
  expect_same_task(decode_task(bytes), task);
}

TEST(MessagesBinary, EveryPrecisionAndLanguageRoundTrips) {
  for (Precision precision : {Precision::f64, Precision::f32, Precision::f16})
    for (Language language : {Language::c, Language::cuda}) {
      BenchTask task = test::full_task();
      task.problem.precision = precision;
      task.problem.language = language;
      const BenchTask back = decode_task(encode_task(task));
      EXPECT_EQ(back.problem.precision, precision);
      EXPECT_EQ(back.problem.language, language);
    }
}

// A CUDA f16 problem that allows fp16 accumulation: the GPU rank's runner needs it for the
// timed residual bound (runner_args.hpp), so the task carries it.
TEST(MessagesBinary, FpSixteenAccumulationRoundTrips) {
  BenchTask task = test::full_task();
  task.problem.precision = Precision::f16;
  task.problem.accumulation = Accumulation::f16;
  const BenchTask back = decode_task(encode_task(task));
  expect_same_task(back, task);
  EXPECT_EQ(back.problem.accumulation, Accumulation::f16);
  EXPECT_EQ(decode_task(encode_task(test::full_task())).problem.accumulation, Accumulation::f32);
}

TEST(MessagesBinary, ResultRoundTripsEveryField) {
  const BenchResult result = test::full_result();
  expect_same_result(decode_result(encode_result(result)), result);
}

TEST(MessagesBinary, DefaultResultRoundTrips) {
  const BenchResult result;  // runtime_error, no techniques detected, empty strings
  expect_same_result(decode_result(encode_result(result)), result);
}

TEST(MessagesBinary, EveryStatusRoundTrips) {
  for (Status status : kAllStatuses) {
    BenchResult result = test::full_result();
    result.measurement.status = status;
    EXPECT_EQ(decode_result(encode_result(result)).measurement.status, status) << to_string(status);
  }
}

// Doubles are carried, not judged: what the rank measured is what rank 0 sees (JSON turned NaN
// into null, which the coordinator could not read back at all).
TEST(MessagesBinary, NanAndInfinitiesArriveAsSent) {
  BenchResult result = test::full_result();
  result.measurement.status = Status::wrong_answer;
  result.measurement.max_error = std::numeric_limits<double>::quiet_NaN();
  result.measurement.gflops = std::numeric_limits<double>::infinity();
  result.measurement.cv = -std::numeric_limits<double>::infinity();
  result.measurement.iqr_s = -0.0;
  const BenchResult back = decode_result(encode_result(result));
  EXPECT_TRUE(std::isnan(back.measurement.max_error));
  EXPECT_EQ(back.measurement.gflops, std::numeric_limits<double>::infinity());
  EXPECT_EQ(back.measurement.cv, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::signbit(back.measurement.iqr_s));
  expect_same_result(back, result);
}

TEST(MessagesBinary, TechniqueSummaryRoundTripsWhenNotDetected) {
  BenchResult result = test::full_result();
  result.measurement.techniques = TechniqueSummary{};
  result.measurement.techniques.evidence = "detection did not run";
  const BenchResult back = decode_result(encode_result(result));
  EXPECT_FALSE(back.measurement.techniques.detected);
  EXPECT_EQ(back.measurement.techniques, result.measurement.techniques);
}

TEST(MessagesBinary, LongReasonAndEvidenceRoundTrip) {
  BenchResult result = test::full_result();
  result.measurement.reason = std::string(100000, 'r');
  result.measurement.techniques.evidence = std::string(250000, 'e');
  expect_same_result(decode_result(encode_result(result)), result);
}

TEST(MessagesBinary, PeekFindsTheSequenceOfATaskThatDoesNotDecode) {
  const BenchTask task = test::full_task();
  const std::string bytes = encode_task(task);
  EXPECT_EQ(peek_task_sequence(bytes), task.sequence);
  EXPECT_EQ(peek_task_sequence(bytes.substr(0, 12)), task.sequence);  // header and sequence only
  EXPECT_EQ(peek_task_sequence(bytes.substr(0, 11)), std::nullopt);
  EXPECT_EQ(peek_task_sequence(encode_result(test::full_result())), std::nullopt);
  EXPECT_EQ(peek_task_sequence(""), std::nullopt);
}

TEST(MessagesBinary, HeaderIsMagicVersionKind) {
  const std::string task = encode_task(test::full_task());
  const std::string result = encode_result(test::full_result());
  EXPECT_EQ(task.substr(0, 4), std::string("HR\x04T", 4));  // 4: the problem's accumulation
  EXPECT_EQ(result.substr(0, 4), std::string("HR\x04R", 4));
  EXPECT_EQ(static_cast<unsigned char>(task[2]), kBinaryMessageVersion);
}

}  // namespace
}  // namespace hpcreward
