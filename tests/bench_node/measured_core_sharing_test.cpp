// vCPU pairs that share a core, where a VM's topology cannot show them
// (bench_node/rank/measured_core_sharing.hpp): which pairs are tried and kept, the text that
// carries them to the ranks, and the topology that counts each pair once.
#include "bench_node/rank/measured_core_sharing.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bench_node/rank/core_split.hpp"

namespace hpcreward {
namespace {

// A host whose vCPU c shares a core with `sibling[c]`; every measurement it was asked for.
struct FakeHost {
  std::map<int, int> sibling;
  std::vector<std::pair<int, int>> asked;
  PairSlowdown slowdown() {
    return [this](int cpu, int partner) {
      asked.emplace_back(cpu, partner);
      auto found = sibling.find(cpu);
      return found != sibling.end() && found->second == partner ? 0.55 : 0.97;
    };
  }
};

std::vector<int> range(int n) {
  std::vector<int> cpus;
  for (int i = 0; i < n; ++i) cpus.push_back(i);
  return cpus;
}

TEST(MeasuredCoreSharing, SiblingsHalfTheListApartArePairedWithTwoMeasurementsEach) {
  FakeHost host;
  for (int c = 0; c < 8; ++c) host.sibling[c] = c + 8, host.sibling[c + 8] = c;
  EXPECT_EQ(find_shared_cores(range(16), host.slowdown()),
            (CorePairs{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}}));
  EXPECT_EQ(host.asked.size(), 16u) << "each pair confirmed once, nothing else tried";
}

TEST(MeasuredCoreSharing, NeighbouringSiblingsArePairedToo) {
  FakeHost host;
  for (int c = 0; c < 8; c += 2) host.sibling[c] = c + 1, host.sibling[c + 1] = c;
  EXPECT_EQ(find_shared_cores(range(8), host.slowdown()), (CorePairs{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
}

TEST(MeasuredCoreSharing, CoresOfTheirOwnAreNotPairedAndCostAFewTriesEach) {
  FakeHost host;
  EXPECT_TRUE(find_shared_cores(range(16), host.slowdown()).empty());
  EXPECT_LE(host.asked.size(), 3u * 16u) << "two or three partners per vCPU, not every pair";
  FakeHost two;
  EXPECT_TRUE(find_shared_cores(range(2), two.slowdown()).empty());
  EXPECT_EQ(two.asked.size(), 1u) << "a 2-vCPU machine: one measurement";
}

TEST(MeasuredCoreSharing, APairMustReadSharedTwiceInARow) {
  int calls = 0;
  const PairSlowdown once_slow = [&calls](int, int) { return ++calls == 1 ? 0.5 : 0.98; };
  EXPECT_TRUE(find_shared_cores(range(2), once_slow).empty()) << "a moment of someone else's load is no sibling";
}

TEST(MeasuredCoreSharing, ThePairsTextRoundTripsAndRefusesWhatItIsNot) {
  const CorePairs pairs{{0, 8}, {1, 9}};
  EXPECT_EQ(core_pairs_text(pairs), "0+8,1+9");
  EXPECT_EQ(parse_core_pairs("0+8,1+9"), pairs);
  EXPECT_EQ(parse_core_pairs("9+1"), (CorePairs{{1, 9}}));
  EXPECT_EQ(parse_core_pairs("none"), CorePairs{});
  EXPECT_EQ(parse_core_pairs(""), CorePairs{});
  for (const char *bad : {"0+", "+1", "0-1", "0+1+2", "0+0", "0+1,1+2", "a+b", "0+1,"})
    EXPECT_FALSE(parse_core_pairs(bad).has_value()) << bad;
}

TEST(MeasuredCoreSharing, EachPairBecomesOneCoreSoPlacementGivesItToOneRank) {
  const CpuTopology vm = synthetic_topology("pack:1 core:4 pu:1");
  ASSERT_EQ(vm.cores.size(), 4u);
  const CpuTopology paired = with_core_pairs(vm, {{0, 2}, {1, 3}});
  ASSERT_EQ(paired.cores.size(), 2u);
  EXPECT_EQ(paired.cores[0].cpus, (std::vector<int>{0, 2}));
  EXPECT_EQ(paired.cores[1].cpus, (std::vector<int>{1, 3}));
  EXPECT_TRUE(share_a_core(paired, {0}, {2}));
  EXPECT_FALSE(share_a_core(paired, {0}, {1}));
  EXPECT_EQ(default_cpu_ranks(static_cast<int>(cores_within(paired, {0, 1, 2, 3}).size()), 0), 2);
}

TEST(MeasuredCoreSharing, PairsTheTopologyCannotHoldAreLeftOut) {
  const CpuTopology smt = synthetic_topology("pack:1 core:2 pu:2");  // real siblings already
  EXPECT_EQ(with_core_pairs(smt, {{0, 1}}).cores.size(), 2u);
  const CpuTopology vm = synthetic_topology("pack:1 core:2 pu:1");
  EXPECT_EQ(with_core_pairs(vm, {{0, 7}}).cores.size(), 2u) << "a CPU it does not list";
}

}  // namespace
}  // namespace hpcreward
