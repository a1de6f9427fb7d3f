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

}  // namespace
}  // namespace hpcreward::techniques
