// The split of a node's CPUs among its benchmark ranks by physical cores.
#include "bench_node/rank/core_split.hpp"

#include <gtest/gtest.h>

#include <set>

#include "topology_fixtures.hpp"

namespace hpcreward {
namespace {

using Cpus = std::vector<int>;

std::vector<CoreShare> split_all(const CpuTopology &topology, const Cpus &cpus, int ranks) {
  std::vector<CoreShare> shares;
  const std::vector<PhysicalCore> cores = cores_within(topology, cpus);
  for (int rank = 0; rank < ranks; ++rank) shares.push_back(split_cores(cores, rank, ranks));
  return shares;
}

// Every CPU of `cpus` used exactly once.
void expect_disjoint_cover(const std::vector<CoreShare> &shares, const Cpus &cpus) {
  std::multiset<int> used;
  for (const CoreShare &share : shares) used.insert(share.cpus.begin(), share.cpus.end());
  EXPECT_EQ(used, std::multiset<int>(cpus.begin(), cpus.end()));
}

void expect_no_shared_core(const CpuTopology &topology, const std::vector<CoreShare> &shares) {
  for (std::size_t a = 0; a < shares.size(); ++a)
    for (std::size_t b = a + 1; b < shares.size(); ++b)
      EXPECT_FALSE(share_a_core(topology, shares[a].cpus, shares[b].cpus)) << "ranks " << a << " and " << b;
}

TEST(CoreSplit, TwoRanksTakeOneSocketEachWithBothSiblings) {
  const CpuTopology topology = synthetic_topology(kTwoSocketsSmt2);
  const std::vector<CoreShare> shares = split_all(topology, kSixteenCpus, 2);
  EXPECT_EQ(shares[0].cpus, (Cpus{0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(shares[1].cpus, (Cpus{4, 5, 6, 7, 12, 13, 14, 15}));
  EXPECT_EQ(shares[0].cores, 4);
  EXPECT_TRUE(shares[1].whole_cores);
}

TEST(CoreSplit, EveryRankCountUpToTheCoresGetsWholeCores) {
  const CpuTopology topology = synthetic_topology(kTwoSocketsSmt2);
  for (int ranks = 1; ranks <= 8; ++ranks) {
    SCOPED_TRACE(ranks);
    const std::vector<CoreShare> shares = split_all(topology, kSixteenCpus, ranks);
    expect_disjoint_cover(shares, kSixteenCpus);
    expect_no_shared_core(topology, shares);
    for (const CoreShare &share : shares) {
      EXPECT_TRUE(share.whole_cores);
      EXPECT_EQ(share.cpus.size(), 2u * static_cast<std::size_t>(share.cores));
      EXPECT_GE(share.cores, 8 / ranks);
    }
  }
}

TEST(CoreSplit, APartialSlurmCpusetSplitsByTheCoresItTouches) {
  const CpuTopology topology = synthetic_topology(kTwoSocketsSmt2);
  const Cpus cpus{0, 1, 2, 3, 8, 9, 10};  // core 3's sibling 11 is not ours
  const std::vector<CoreShare> shares = split_all(topology, cpus, 2);
  EXPECT_EQ(shares[0].cpus, (Cpus{0, 1, 8, 9}));
  EXPECT_EQ(shares[1].cpus, (Cpus{2, 3, 10}));
  EXPECT_EQ(shares[1].cores, 2);
  expect_no_shared_core(topology, shares);
}

TEST(CoreSplit, FewerCoresThanRanksSaysSoAndStillUsesSeparateCpus) {
  const CpuTopology topology = synthetic_topology(kTwoSocketsSmt2);
  const std::vector<CoreShare> shares = split_all(topology, kSixteenCpus, 12);
  expect_disjoint_cover(shares, kSixteenCpus);
  for (const CoreShare &share : shares) {
    EXPECT_FALSE(share.whole_cores);
    EXPECT_EQ(share.cores, 1);
  }
  // Four ranks get a whole core (two CPUs), eight get one sibling each.
  EXPECT_EQ(shares[0].cpus, (Cpus{0, 8}));
  EXPECT_EQ(shares[4].cpus, (Cpus{4}));
  EXPECT_EQ(shares[5].cpus, (Cpus{12}));
}

TEST(CoreSplit, MoreRanksThanCpusReuseThemRoundRobin) {
  const CpuTopology topology = synthetic_topology("pack:1 core:2 pu:1");
  const std::vector<CoreShare> shares = split_all(topology, {0, 1}, 3);
  EXPECT_EQ(shares[0].cpus, (Cpus{0}));
  EXPECT_EQ(shares[1].cpus, (Cpus{1}));
  EXPECT_EQ(shares[2].cpus, (Cpus{0}));
  EXPECT_FALSE(shares[2].whole_cores);
}

TEST(CoreSplit, OneRankKeepsEverything) {
  const CpuTopology topology = synthetic_topology(kTwoSocketsSmt2);
  const CoreShare share = split_cores(cores_within(topology, kSixteenCpus), 0, 1);
  EXPECT_EQ(share.cpus, kSixteenCpus);
  EXPECT_EQ(share.cores, 8);
  EXPECT_TRUE(split_cores({}, 0, 2).cpus.empty());
}

// A GPU rank beside CPU ranks takes the cores its compile workers and measurers need.
TEST(CoreSplit, AGpuRankTakesTheCoresItAsksForAndTheCpuRanksShareTheRest) {
  const CpuTopology topology = synthetic_topology(kTwoSocketsSmt2);
  const std::vector<PhysicalCore> cores = cores_within(topology, kSixteenCpus);  // 8 cores
  const std::vector<int> wants = {0, 0, 0, 0, 4};                                // 4 CPU ranks, 1 GPU rank
  EXPECT_EQ(core_counts(8, wants), (std::vector<int>{1, 1, 1, 1, 4}));
  std::vector<CoreShare> shares;
  for (int rank = 0; rank < 5; ++rank) shares.push_back(split_cores(cores, rank, wants));
  expect_disjoint_cover(shares, kSixteenCpus);
  expect_no_shared_core(topology, shares);
  EXPECT_EQ(shares[4].cores, 4);
  EXPECT_EQ(shares[4].cpus.size(), 8u) << "both siblings of its 4 cores";
}

TEST(CoreSplit, AsksThatDoNotFitShrinkAndEveryRankKeepsACore) {
  EXPECT_EQ(core_counts(4, {0, 0, 8}), (std::vector<int>{1, 1, 2}));
  EXPECT_EQ(core_counts(5, {0, 6, 6}), (std::vector<int>{1, 2, 2}));
  EXPECT_EQ(core_counts(3, {0, 100, 1}), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(core_counts(16, {0, 0, 0, 0, 0, 0, 0, 0, 8}), (std::vector<int>{1, 1, 1, 1, 1, 1, 1, 1, 8}));
  EXPECT_EQ(core_counts(16, {0, 0, 4}), (std::vector<int>{6, 6, 4}));
}

TEST(CoreSplit, GpuRanksAloneShareEveryCoreInTurn) {
  EXPECT_EQ(core_counts(32, {8, 8}), (std::vector<int>{16, 16}));
  EXPECT_EQ(core_counts(7, {2, 2}), (std::vector<int>{4, 3}));
}

TEST(CoreSplit, WithoutAsksOrWithFewerCoresThanRanksTheSplitIsEven) {
  const CpuTopology topology = synthetic_topology(kTwoSocketsSmt2);
  const std::vector<PhysicalCore> cores = cores_within(topology, kSixteenCpus);
  for (int rank = 0; rank < 3; ++rank) EXPECT_EQ(split_cores(cores, rank, {0, 0, 0}).cpus, split_cores(cores, rank, 3).cpus);
  const std::vector<int> many(10, 1);
  for (int rank = 0; rank < 10; ++rank) EXPECT_EQ(split_cores(cores, rank, many).cpus, split_cores(cores, rank, 10).cpus);
}

TEST(CoreSplit, TheDefaultGpuShareIsEnoughForItsWorkersAndAtMostHalfTheNode) {
  EXPECT_EQ(default_gpu_rank_cores(16, 9, 1), 8) << "8 CPU ranks and a GPU rank on 16 cores";
  EXPECT_EQ(default_gpu_rank_cores(64, 24, 8), 4) << "8 GPU ranks take half of 64 cores";
  EXPECT_EQ(default_gpu_rank_cores(32, 2, 2), 16) << "never less than an even share";
  EXPECT_EQ(default_gpu_rank_cores(2, 3, 1), 1);
  EXPECT_EQ(default_gpu_rank_cores(16, 8, 0), 0);
}

// The launcher's default CPU ranks leave every CPU rank a core of its own beside the GPU ranks'
// default shares, so the placement that follows splits whole cores (no two ranks on one core).
TEST(CoreSplit, TheDefaultCpuRanksFillTheCoresTheGpuRanksLeave) {
  EXPECT_EQ(default_cpu_ranks(16, 1), 8) << "an H200 host of 16 cores: 8 CPU ranks and a GPU rank of 8 cores";
  EXPECT_EQ(default_cpu_ranks(16, 0), 16);
  EXPECT_EQ(default_cpu_ranks(2, 0), 2);
  EXPECT_EQ(default_cpu_ranks(2, 1), 1);
  EXPECT_EQ(default_cpu_ranks(1, 1), 0) << "the GPU rank needs the only core";
  EXPECT_EQ(default_cpu_ranks(0, 0), 1);
  for (int node_cores = 1; node_cores <= 160; ++node_cores)
    for (int gpu_ranks = 1; gpu_ranks <= 8; ++gpu_ranks) {
      const int cpu_ranks = default_cpu_ranks(node_cores, gpu_ranks);
      if (cpu_ranks == 0) continue;
      const int ranks = cpu_ranks + gpu_ranks;
      std::vector<int> wants(static_cast<std::size_t>(ranks), 0);
      for (int g = cpu_ranks; g < ranks; ++g)
        wants[static_cast<std::size_t>(g)] = default_gpu_rank_cores(node_cores, ranks, gpu_ranks);
      const std::vector<int> counts = core_counts(node_cores, wants);
      for (int r = 0; r < cpu_ranks; ++r)
        EXPECT_EQ(counts[static_cast<std::size_t>(r)], 1) << node_cores << " cores, " << gpu_ranks << " GPU ranks";
      for (int g = cpu_ranks; g < ranks; ++g)
        EXPECT_EQ(counts[static_cast<std::size_t>(g)], wants[static_cast<std::size_t>(g)]) << node_cores << " " << gpu_ranks;
    }
}

}  // namespace
}  // namespace hpcreward
