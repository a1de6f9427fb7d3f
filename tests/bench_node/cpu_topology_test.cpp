// The topology layer on nodes this machine is not: hwloc synthetic topologies and XML.
#include "bench_node/rank/cpu_topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "bench_node/process/cpu_affinity.hpp"
#include "topology_fixtures.hpp"

namespace hpcreward {
namespace {

using Cpus = std::vector<int>;

TEST(CpuTopology, TwoSocketsWithLinuxStyleSmtNumbering) {
  const CpuTopology topology = synthetic_topology(kTwoSocketsSmt2);
  ASSERT_EQ(topology.error, "");
  ASSERT_EQ(topology.cores.size(), 8u);
  EXPECT_EQ(topology.cores[0].cpus, (Cpus{0, 8}));
  EXPECT_EQ(topology.cores[5].cpus, (Cpus{5, 13}));
  EXPECT_EQ(topology.cores[3].package, 0);
  EXPECT_EQ(topology.cores[4].package, 1);
}

TEST(CpuTopology, CoresWithinAPartialSlurmCpuset) {
  const CpuTopology topology = synthetic_topology(kTwoSocketsSmt2);
  // Cores 0-2 whole, core 3 by one sibling only (Slurm handed out CPU 11 elsewhere).
  const Cpus cpus{0, 1, 2, 3, 8, 9, 10};
  const std::vector<PhysicalCore> cores = cores_within(topology, cpus);
  ASSERT_EQ(cores.size(), 4u);
  EXPECT_EQ(cores[2].cpus, (Cpus{2, 10}));
  EXPECT_EQ(cores[3].cpus, (Cpus{3}));
  EXPECT_EQ(cores_with_siblings_outside(topology, cpus, cpus), 1);
  EXPECT_EQ(cores_with_siblings_outside(topology, {3}, cpus), 1);
  EXPECT_EQ(cores_with_siblings_outside(topology, {0, 8}, cpus), 0);
  // --hint=nomultithread style: one sibling of every core.
  EXPECT_EQ(cores_with_siblings_outside(topology, {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}), 8);
}

TEST(CpuTopology, SiblingsShareACoreAndNumbersAloneDoNotShowIt) {
  const CpuTopology topology = synthetic_topology(kTwoSocketsSmt2);
  EXPECT_TRUE(share_a_core(topology, {0}, {8}));
  EXPECT_TRUE(share_a_core(topology, {3, 4}, {4}));
  EXPECT_FALSE(share_a_core(topology, {0, 8}, {1, 9}));
  // The old split by CPU number gave two ranks 0-7 and 8-15: every core shared.
  EXPECT_TRUE(share_a_core(topology, partition_cpus(kSixteenCpus, 0, 2), partition_cpus(kSixteenCpus, 1, 2)));
}

TEST(CpuTopology, AnUnreadableTopologyKeepsEveryCpuAsItsOwnCore) {
  const CpuTopology topology = synthetic_topology("pack:2 bogus:3");
  EXPECT_NE(topology.error, "");
  EXPECT_TRUE(topology.cores.empty());
  const std::vector<PhysicalCore> cores = cores_within(topology, {0, 1, 5});
  ASSERT_EQ(cores.size(), 3u);
  EXPECT_EQ(cores[2].cpus, (Cpus{5}));
  EXPECT_FALSE(share_a_core(topology, {0}, {1}));
  EXPECT_TRUE(share_a_core(topology, {0, 1}, {1}));
}

TEST(CpuTopology, CpusTheTopologyDoesNotListAreCoresOfTheirOwn) {
  const CpuTopology topology = synthetic_topology("pack:1 core:2 pu:2");
  const std::vector<PhysicalCore> cores = cores_within(topology, {0, 1, 40});
  ASSERT_EQ(cores.size(), 2u);
  EXPECT_EQ(cores[0].cpus, (Cpus{0, 1}));
  EXPECT_EQ(cores[1].cpus, (Cpus{40}));
}

TEST(CpuTopology, XmlOfAVirtualMachineCarriesItsDmiNames) {
  std::ifstream in(HPCREWARD_TOPOLOGIES_DIR "/kvm-2-vcpus.xml");
  std::ostringstream xml;
  xml << in.rdbuf();
  const CpuTopology topology = xml_topology(xml.str());
  ASSERT_EQ(topology.error, "");
  ASSERT_EQ(topology.cores.size(), 2u);
  EXPECT_EQ(topology.cores[1].cpus, (Cpus{1}));
  EXPECT_EQ(topology.dmi_sys_vendor, "QEMU");
  EXPECT_EQ(topology.dmi_product_name, "Standard PC (Q35 + ICH9, 2009)");
  EXPECT_NE(xml_topology("<topology>").error, "");
}

TEST(CpuTopology, ThisHostListsEveryCpuOfThisProcess) {
  const CpuTopology topology = read_host_topology();
  ASSERT_EQ(topology.error, "");
  const Cpus cpus = affinity_cpus();
  std::size_t listed = 0;
  for (const PhysicalCore &core : topology.cores)
    for (int cpu : core.cpus) listed += static_cast<std::size_t>(std::count(cpus.begin(), cpus.end(), cpu));
  EXPECT_EQ(listed, cpus.size());
}

}  // namespace
}  // namespace hpcreward
