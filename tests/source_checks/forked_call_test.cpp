// The parser's child process: a result comes back, and a hang, a memory bomb, a crash or an
// exception costs the child, never the caller.
#include "bench_node/source_checks/forked_call.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace hpcreward::source_checks {
namespace {

TEST(ForkedCall, ReturnsTheText) {
  const ForkOutcome outcome = run_forked([] { return std::string("forbidden\nx"); }, {});
  EXPECT_EQ(outcome.end, ForkOutcome::End::returned);
  EXPECT_EQ(outcome.output, "forbidden\nx");
}

TEST(ForkedCall, LargeOutputArrivesWhole) {
  const ForkOutcome outcome = run_forked([] { return std::string(300000, 'x'); }, {});
  EXPECT_EQ(outcome.output.size(), 300000u);
}

TEST(ForkedCall, DeadlineKillsAHang) {
  const auto start = std::chrono::steady_clock::now();
  const ForkOutcome outcome = run_forked(
      [] {
        for (;;) ::pause();
        return std::string();
      },
      {0.5, 1ULL << 30});
  EXPECT_EQ(outcome.end, ForkOutcome::End::timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// In parts: what was sent before the child ended comes back however it ended, and the first
// part has its own (earlier) deadline.
TEST(ForkedCall, PartsSentBeforeAHangComeBack) {
  const ForkOutcome outcome = run_forked_in_parts(
      [](const Send &send) {
        send("verdict\n");
        for (;;) ::pause();
      },
      {0.5, 1ULL << 30});
  EXPECT_EQ(outcome.end, ForkOutcome::End::timed_out);
  EXPECT_EQ(outcome.output, "verdict\n");
}

TEST(ForkedCall, TheFirstPartDeadlineKillsAChildThatSentNothing) {
  const auto start = std::chrono::steady_clock::now();
  const ForkOutcome outcome = run_forked_in_parts(
      [](const Send &) {
        for (;;) ::pause();
      },
      {60, 1ULL << 30, 0.5});
  EXPECT_EQ(outcome.end, ForkOutcome::End::timed_out);
  EXPECT_EQ(outcome.output, "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(ForkedCall, AfterTheFirstPartTheWholeDeadlineHolds) {
  const ForkOutcome outcome = run_forked_in_parts(
      [](const Send &send) {
        send("verdict\n");
        ::usleep(1500 * 1000);  // past the first part's deadline, well within the whole
        send("techniques\n");
      },
      // 1 s for the first part: a forked child on a loaded CI machine took longer than 0.1 s
      // to send it.
      {60, 1ULL << 30, 1.0});
  EXPECT_EQ(outcome.end, ForkOutcome::End::returned);
  EXPECT_EQ(outcome.output, "verdict\ntechniques\n");
}

TEST(ForkedCall, MemoryLimitStopsABomb) {
  const ForkOutcome outcome = run_forked(
      [] {
        std::vector<std::vector<char>> hog;
        for (;;) hog.emplace_back(64 << 20, 'x');
        return std::string();
      },
      {10, 256ULL << 20});
  EXPECT_EQ(outcome.end, ForkOutcome::End::out_of_memory);
}

TEST(ForkedCall, CrashesAndExceptionsAreReported) {
  const ForkOutcome crash = run_forked(
      [] {
        std::abort();
        return std::string();
      },
      {});
  EXPECT_EQ(crash.end, ForkOutcome::End::crashed);
  EXPECT_NE(crash.detail.find("SIGABRT"), std::string::npos) << crash.detail;
  const ForkOutcome thrown = run_forked([]() -> std::string { throw std::runtime_error("x"); }, {});
  EXPECT_EQ(thrown.end, ForkOutcome::End::crashed);
}

}  // namespace
}  // namespace hpcreward::source_checks
