#include "bench_node/process/classify.hpp"

#include <signal.h>

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
