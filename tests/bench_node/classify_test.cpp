#include "bench_node/process/classify.hpp"

#include <signal.h>

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "bench_node/process/result_envelope.hpp"

namespace hpcreward {
namespace {

const RunExpectations kExpected{"token123", 60, 125};

ChildOutcome exited(int code, std::string result = {}, std::string output = {}) {
  ChildOutcome outcome;
  outcome.started = true;
  outcome.exited = true;
  outcome.exit_code = code;
  outcome.result = std::move(result);
  outcome.output = std::move(output);
  outcome.wall_s = 1.0;
  return outcome;
}

ChildOutcome killed(int signal, double cpu_s = 0.5, std::string output = {}) {
  ChildOutcome outcome;
  outcome.started = true;
  outcome.signaled = true;
  outcome.signal = signal;
  outcome.cpu_s = cpu_s;
  outcome.output = std::move(output);
  return outcome;
}

Measurement ok_measurement() {
  Measurement m;
  m.status = Status::ok;
  m.gflops = 2;
  m.median_s = 0.01;
  m.min_s = 0.009;
  m.reps = 20;
  return m;
}

TEST(Classify, ResultWithTheTokenIsTheMeasurement) {
  const Measurement m = classify_run(exited(0, encode_result("token123", ok_measurement())), kExpected);
  EXPECT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_EQ(m.gflops, 2);
  Measurement wrong;
  wrong.status = Status::wrong_answer;
  wrong.reason = "inputs modified";
  const Measurement w = classify_run(exited(0, encode_result("token123", wrong)), kExpected);
  EXPECT_EQ(w.status, Status::wrong_answer);
  EXPECT_EQ(w.reason, "inputs modified");
}

TEST(Classify, WrongTokenOrImpossibleTimesAreTampering) {
  EXPECT_EQ(classify_run(exited(0, encode_result("guess", ok_measurement())), kExpected).status,
            Status::forbidden);
  Measurement fast = ok_measurement();
  fast.min_s = 0.5;  // 20 calls of 0.5 s in a child alive for 1 s
  EXPECT_EQ(classify_run(exited(0, encode_result("token123", fast)), kExpected).status,
            Status::forbidden);
}

TEST(Classify, MalformedResultIsARuntimeError) {
  const std::string good = encode_result("token123", ok_measurement());
  for (const std::string &text : {std::string("{\"token\":"), "x" + good, good + good}) {
    const Measurement m = classify_run(exited(0, text), kExpected);
    EXPECT_EQ(m.status, Status::runtime_error) << text;
    EXPECT_NE(m.reason.find("malformed"), std::string::npos);
  }
}

// A wrong answer's error can be any double: every value travels, and none breaks the channel.
TEST(ResultEnvelope, CarriesNumbersOfAnyMagnitude) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (double value : {1e308, std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), inf, -inf,
                       nan, 5e-324, 0.0}) {
    Measurement wrong;
    wrong.status = Status::wrong_answer;
    wrong.reason = "wrong result at 64x64x64: relative error inf > tolerance 1e-12; most wrong at C[63][0]: 1e+308 "
                   "instead of 0.5";
    wrong.max_error = value;
    wrong.cv = value;  // mixed: another field beside it, the rest finite
    wrong.verify_s = 0.25;
    const std::optional<DecodedResult> decoded = decode_result(encode_result("token123", wrong));
    ASSERT_TRUE(decoded) << value;
    for (double got : {decoded->measurement.max_error, decoded->measurement.cv}) {
      if (std::isnan(value))
        EXPECT_TRUE(std::isnan(got));
      else
        EXPECT_EQ(got, value);
    }
    EXPECT_EQ(decoded->measurement.verify_s, 0.25);
    const Measurement m = classify_run(exited(0, encode_result("token123", wrong)), kExpected);
    EXPECT_EQ(m.status, Status::wrong_answer) << value;
    EXPECT_EQ(m.reason, wrong.reason);
  }
}

TEST(ResultEnvelope, EveryNumberOfAMeasurementMayBeNonFinite) {
  Measurement all;
  all.status = Status::wrong_answer;
  all.gflops = all.median_s = all.min_s = all.iqr_s = std::numeric_limits<double>::infinity();
  all.cv = all.max_error = std::numeric_limits<double>::quiet_NaN();
  all.compile_s = all.verify_s = all.time_s = -std::numeric_limits<double>::infinity();
  const std::optional<DecodedResult> decoded = decode_result(encode_result("token123", all));
  ASSERT_TRUE(decoded);
  EXPECT_TRUE(std::isinf(decoded->measurement.median_s));
  EXPECT_TRUE(std::isnan(decoded->measurement.max_error));
  EXPECT_EQ(decoded->measurement.time_s, -std::numeric_limits<double>::infinity());
}

TEST(ResultEnvelope, ReasonsThatAreNotUtf8StillEncode) {
  Measurement wrong;
  wrong.status = Status::wrong_answer;
  wrong.reason = "bytes \xff\xfe";
  const std::optional<DecodedResult> decoded = decode_result(encode_result("token123", wrong));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->measurement.status, Status::wrong_answer);
}

// Nothing gets looser: a truncated or altered envelope is still malformed, a forged token still
// forbidden, and an ok result with times that are not finite still refused.
TEST(Classify, TruncatedOrUnreadableNumbersAreStillMalformed) {
  Measurement wrong;
  wrong.status = Status::wrong_answer;
  wrong.max_error = std::numeric_limits<double>::infinity();
  const std::string good = encode_result("token123", wrong);
  ASSERT_NE(good.find("\"max_error\":\"inf\""), std::string::npos) << good;
  std::vector<std::string> bad;
  for (std::size_t cut : {good.size() / 3, good.size() / 2, good.size() - 1}) bad.push_back(good.substr(0, cut));
  for (const char *other : {"null", "\"infinity\"", "\"Inf\"", "\"\"", "true", "[1]"}) {
    std::string text = good;
    text.replace(text.find("\"inf\""), 5, other);
    bad.push_back(text);
  }
  for (const std::string &text : bad) {
    const Measurement m = classify_run(exited(0, text), kExpected);
    EXPECT_EQ(m.status, Status::runtime_error) << text;
    EXPECT_NE(m.reason.find("malformed"), std::string::npos) << m.reason;
    EXPECT_EQ(m.reason.find("something else"), std::string::npos) << m.reason;
  }
  EXPECT_EQ(classify_run(exited(0, encode_result("guess", wrong)), kExpected).status, Status::forbidden);
  for (double value : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    for (int field = 0; field < 3; ++field) {
      Measurement odd = ok_measurement();
      (field == 0 ? odd.median_s : field == 1 ? odd.min_s : odd.gflops) = value;
      EXPECT_EQ(classify_run(exited(0, encode_result("token123", odd)), kExpected).status, Status::forbidden)
          << field << " " << value;
    }
  }
}

TEST(ResultEnvelope, CarriesAServingMeasurersPhasesAndNothingElse) {
  const std::optional<DecodedResult> decoded =
      decode_result(encode_result("token123", ok_measurement(), {{"canary", 0.25}, {"verification", 0.5}}));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->measurement.gflops, 2);
  EXPECT_EQ(decoded->phases, (PhaseSeconds{{"canary", 0.25}, {"verification", 0.5}}));
  EXPECT_TRUE(decode_result(encode_result("token123", ok_measurement()))->phases.empty());
  // Any other third key is not an envelope.
  std::string other = encode_result("token123", ok_measurement());
  other.insert(1, "\"extra\":1,");
  EXPECT_FALSE(decode_result(other));
}

TEST(Classify, ExitWithoutResultNamesCodeAndFirstOutputLine) {
  Measurement m = classify_run(exited(0, {}, "\n  boom: it broke\nmore\n"), kExpected);
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_EQ(m.reason, "exited with code 0 without a result: boom: it broke");
  m = classify_run(exited(3), kExpected);
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_EQ(m.reason, "exited with code 3 without a result");
}

TEST(Classify, Signals) {
  Measurement m = classify_run(killed(SIGSEGV), kExpected);
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_EQ(m.reason, "killed by signal SIGSEGV (Segmentation fault)");
  m = classify_run(killed(SIGABRT, 0.1, "cand.c:3: matmul: Assertion `0' failed."), kExpected);
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_NE(m.reason.find("SIGABRT"), std::string::npos);
  EXPECT_NE(m.reason.find("Assertion"), std::string::npos);
  EXPECT_EQ(classify_run(killed(SIGXCPU), kExpected).status, Status::timeout);
  EXPECT_EQ(classify_run(killed(SIGKILL, 126), kExpected).status, Status::timeout);  // hard CPU limit
  EXPECT_EQ(classify_run(killed(SIGKILL, 1), kExpected).status, Status::runtime_error);
}

TEST(Classify, DeathBySigsysIsForbidden) {
  // The seccomp filter kills the runner with SIGSYS on a disallowed system call.
  for (double cpu_s : {0.1, 200.0}) {
    const Measurement m = classify_run(killed(SIGSYS, cpu_s, "some output\n"), kExpected);
    EXPECT_EQ(m.status, Status::forbidden);
    EXPECT_EQ(m.reason, "forbidden: made a system call the sandbox does not allow (killed by SIGSYS)");
    EXPECT_EQ(m.gflops, 0);
  }
}

TEST(Classify, DeadlineAndStartFailure) {
  ChildOutcome late = killed(SIGKILL);
  late.timed_out = true;
  const Measurement m = classify_run(late, kExpected);
  EXPECT_EQ(m.status, Status::timeout);
  EXPECT_EQ(m.reason, "exceeded the wall-clock limit of 60 s");
  ChildOutcome silent = killed(SIGKILL);
  silent.went_silent = true;
  RunExpectations watched = kExpected;
  watched.silence_limit_s = 2;
  const Measurement hung = classify_run(silent, watched);
  EXPECT_EQ(hung.status, Status::timeout);
  EXPECT_EQ(hung.reason, "a call into the candidate did not return within 2 s (the run's watchdog)");
  ChildOutcome never;
  never.start_error = "execve /nope: No such file or directory";
  EXPECT_EQ(classify_run(never, kExpected).status, Status::runtime_error);
}

}  // namespace
}  // namespace hpcreward
