// FlushBeforeWait: the hook runs exactly when rank 0 would block, never while answers are
// already there, and never for a look that does not wait.
#include "coordinator/scoring/flush_before_wait.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <vector>

namespace hpcreward {
namespace {

// Answers each receive_result with the next scripted result (nullopt: none there), and
// records the timeouts it was asked with.
class ScriptedTransport : public BenchTransport {
 public:
  std::deque<std::optional<BenchResult>> script;
  std::vector<long> timeouts_ms;
  std::vector<int> sent_to;

  void send_task(int rank, const BenchTask &) override { sent_to.push_back(rank); }
  std::optional<BenchResult> receive_result(std::chrono::milliseconds timeout) override {
    timeouts_ms.push_back(static_cast<long>(timeout.count()));
    if (script.empty()) return std::nullopt;
    std::optional<BenchResult> next = script.front();
    script.pop_front();
    return next;
  }
};

BenchResult result_of(int rank) {
  BenchResult result;
  result.rank = rank;
  return result;
}

TEST(FlushBeforeWait, AResultAlreadyThereIsTakenWithoutTheHook) {
  ScriptedTransport inner;
  inner.script = {result_of(3)};
  int hooks = 0;
  FlushBeforeWait transport(inner, [&] { ++hooks; });
  const auto result = transport.receive_result(std::chrono::milliseconds(250));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->rank, 3);
  EXPECT_EQ(hooks, 0);
  EXPECT_EQ(inner.timeouts_ms, std::vector<long>{0}) << "only a look, no wait";
}

TEST(FlushBeforeWait, TheHookRunsBeforeTheWaitWhenNothingIsThere) {
  ScriptedTransport inner;
  inner.script = {std::nullopt, result_of(5)};
  std::vector<std::size_t> calls_at_hook;
  FlushBeforeWait transport(inner, [&] { calls_at_hook.push_back(inner.timeouts_ms.size()); });
  const auto result = transport.receive_result(std::chrono::milliseconds(250));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->rank, 5);
  EXPECT_EQ(calls_at_hook, std::vector<std::size_t>{1}) << "after the look, before the wait";
  EXPECT_EQ(inner.timeouts_ms, (std::vector<long>{0, 250}));
}

TEST(FlushBeforeWait, ALookThatDoesNotWaitSkipsTheHook) {
  ScriptedTransport inner;
  int hooks = 0;
  FlushBeforeWait transport(inner, [&] { ++hooks; });
  EXPECT_FALSE(transport.receive_result(std::chrono::milliseconds(0)));
  EXPECT_EQ(hooks, 0);
  EXPECT_EQ(inner.timeouts_ms, std::vector<long>{0});
}

TEST(FlushBeforeWait, SendsPassThrough) {
  ScriptedTransport inner;
  FlushBeforeWait transport(inner, [] {});
  transport.send_task(7, BenchTask{});
  EXPECT_EQ(inner.sent_to, std::vector<int>{7});
}

}  // namespace
}  // namespace hpcreward
