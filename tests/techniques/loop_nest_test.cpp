// The pure loop-structure rules on hand-built loop trees.
#include "techniques/loop_nest.hpp"

#include <gtest/gtest.h>

namespace hpcreward::techniques {
namespace {

Loop loop(std::string var, long step, std::vector<std::string> start = {}) {
  Loop out;
  out.var = std::move(var);
  out.step = step;
  out.start_names = std::move(start);
  return out;
}

Loop nest(std::vector<Loop> chain, Update update) {
  chain.back().updates.push_back(std::move(update));
  while (chain.size() > 1) {
    Loop inner = std::move(chain.back());
    chain.pop_back();
    chain.back().inner.push_back(std::move(inner));
  }
  return chain.front();
}

Update gemm_update() { return {{"C", "i", "n", "j"}, {"A", "i", "k", "p"}, {"B", "p", "n", "j"}, 7}; }

TEST(LoopNest, OrderFollowsTheNest) {
  EXPECT_EQ(find_loop_order({nest({loop("i", 1), loop("j", 1), loop("p", 1)}, gemm_update())}), "ijk");
  EXPECT_EQ(find_loop_order({nest({loop("i", 1), loop("p", 1), loop("j", 1)}, gemm_update())}), "ikj");
  EXPECT_EQ(find_loop_order({nest({loop("j", 1), loop("p", 1), loop("i", 1)}, gemm_update())}), "jki");
}

TEST(LoopNest, OrderNeedsThreeLoops) {
  EXPECT_EQ(find_loop_order({nest({loop("i", 1), loop("j", 1)}, gemm_update())}), "");
}

TEST(LoopNest, TileLoopsAreFoundAndIgnoredForOrder) {
  const Loop tiled = nest({loop("ii", 64), loop("i", 1, {"ii"}), loop("p", 1), loop("j", 1)},
                          gemm_update());
  const BlockingFacts facts = find_blocking({tiled});
  EXPECT_TRUE(facts.blocking);
  EXPECT_EQ(facts.tile_sizes, std::vector<int>{64});
  EXPECT_EQ(find_loop_order({tiled}), "ikj");
}

TEST(LoopNest, NamedStepIsBlockingWithoutASize) {
  const Loop tiled = nest({loop("ii", kNamedStep), loop("i", 1, {"ii"})}, {});
  const BlockingFacts facts = find_blocking({tiled});
  EXPECT_TRUE(facts.blocking);
  EXPECT_TRUE(facts.tile_sizes.empty());
}

TEST(LoopNest, StridedLoopAloneIsNotBlocking) {
  EXPECT_FALSE(find_blocking({nest({loop("i", 1), loop("j", 4)}, {})}).blocking);
  // The inner loop steps by as much as the outer one: an unrolled pair, not a tile.
  EXPECT_FALSE(find_blocking({nest({loop("i", 8), loop("j", 8, {"i"})}, {})}).blocking);
}

std::vector<std::string> split(const std::string &text) {
  std::vector<std::string> tokens;
  std::string token;
  for (char c : text + " ") {
    if (c == ' ') {
      if (!token.empty()) tokens.push_back(token);
      token.clear();
    } else {
      token += c;
    }
  }
  return tokens;
}

Truth truth(const std::string &condition) {
  return condition_truth(split(condition), {"m", "n", "k"}, {{"TILE", 64}});
}

TEST(LoopNest, ConditionsNoHarnessShapeSatisfies) {
  for (const char *never : {"m < 0", "m <= 0", "0 > m", "m == 0", "m < 1", "m + n < 2", "- m > 0", "! m",
                            "( m < 0 ) && ( i < m )", "m < 0 && k > 3", "0",
                            "m - 2000000 > n", "TILE < 2", "m < 0 || n < 0"})
    EXPECT_EQ(truth(never), Truth::never) << never;
  for (const char *always : {"m > 0", "m >= 1", "m != 0", "1", "m > 0 || i < 3", "! ( m < 0 )"})
    EXPECT_EQ(truth(always), Truth::always) << always;
}

TEST(LoopNest, ConditionsThatMayHoldOrAreNotUnderstoodCount) {
  // Shapes that run: the harness's check shapes are small, its nominal ones large.
  for (const char *may : {"m < 64", "m == 31", "m > 1000", "m % 64 == 0", "i < m", "m < 0 || i < m",
                          "A [ 0 ] < 0", "f ( m ) < 0", "( long ) m < 0", "m / 2 < 0", "x < 0", "m < 0 ? 1 : 0",
                          "m < 0 )", "( m < 0", "m <", "", "x > 2147483647",
                          // Could overflow an int: C's value is not the interval's.
                          "m * n == 0", "m * 2000000000 < 0", "2147483647 + m < 0", "x * 0 == 0"})
    EXPECT_EQ(truth(may), Truth::unknown) << may;
  // Without dimensions (a helper's parameters could be 0), only constants decide.
  EXPECT_EQ(condition_truth(split("kb < 1"), {}), Truth::unknown);
  EXPECT_EQ(condition_truth(split("0 && kb"), {}), Truth::never);
}

TEST(LoopNest, OnlyFunctionsTheEntryReachesRun) {
  Functions functions;
  functions["matmul"].callees = {"kernel"};
  functions["kernel"].callees = {"pack", "kernel"};
  functions["pack"];
  functions["variant"].callees = {"pack"};  // called by nobody, or only where it never runs
  EXPECT_EQ(reachable_functions(functions, "matmul"), (std::set<std::string>{"matmul", "kernel", "pack"}));
  EXPECT_EQ(reachable_functions(functions, "gemm").size(), 4u) << "no entry: every function may run";
}

}  // namespace
}  // namespace hpcreward::techniques
