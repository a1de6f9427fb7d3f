#include "bench_node/process/cpu_affinity.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

using Cpus = std::vector<int>;

TEST(CpuAffinity, ThisProcessHasCpus) {
  EXPECT_GE(affinity_cpu_count(), 1);
  EXPECT_EQ(static_cast<int>(affinity_cpus().size()), affinity_cpu_count());
}

TEST(CpuAffinity, PartitionUsesEveryCpuInDisjointBlocks) {
  const Cpus cpus = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(partition_cpus(cpus, 0, 3), (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(partition_cpus(cpus, 1, 3), (Cpus{4, 5, 6}));
  EXPECT_EQ(partition_cpus(cpus, 2, 3), (Cpus{7, 8, 9}));
  EXPECT_EQ(partition_cpus(cpus, 0, 1), cpus);
}

TEST(CpuAffinity, MoreRanksThanCpusShareRoundRobin) {
  const Cpus cpus = {4, 6};
  EXPECT_EQ(partition_cpus(cpus, 0, 2), (Cpus{4}));
  EXPECT_EQ(partition_cpus(cpus, 1, 2), (Cpus{6}));
  EXPECT_EQ(partition_cpus(cpus, 2, 3), (Cpus{4}));
}

TEST(CpuAffinity, Describe) {
  EXPECT_EQ(describe_cpus({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(describe_cpus({}), "");
}

}  // namespace
}  // namespace hpcreward
