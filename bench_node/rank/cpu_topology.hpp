#pragma once
// The node's physical cores as hwloc sees them: which logical CPUs (hwloc's PUs, by the OS's
// CPU numbers) are SMT siblings of one core. Placement splits by these cores, because two
// timed runs on siblings share one core's execution units and disturb each other's timings.
// Built from this host, or from an hwloc synthetic description or XML (tests model nodes
// this machine is not: two sockets with 2-way SMT, a partial Slurm cpuset).
#include <string>
#include <vector>

namespace hpcreward {

struct PhysicalCore {
  int package = 0;        // socket (hwloc's logical index)
  std::vector<int> cpus;  // the core's PUs (its SMT siblings), OS numbers ascending
};

struct CpuTopology {
  std::vector<PhysicalCore> cores;  // package by package, in hwloc's order
  std::string error;                // why the topology could not be read (cores empty then)
  // Machine-level facts hwloc reports (DMI on Linux), used to recognize a virtual machine.
  std::string dmi_sys_vendor, dmi_product_name;
};

// This host (hwloc's Linux backend, restricted to what this process's cgroup allows).
CpuTopology read_host_topology();
// hwloc's synthetic format, e.g. "pack:2 core:4 pu:2(indexes=0,8,1,9,...)".
CpuTopology synthetic_topology(const std::string &description);
// An exported topology (lstopo --of xml).
CpuTopology xml_topology(const std::string &xml);

// The cores that hold any of `cpus`, each with only its PUs among `cpus` (kept in topology
// order). A CPU the topology does not list (it could not be read) is a core of its own, so a
// broken topology degrades to the old split by CPU number, never to losing CPUs.
std::vector<PhysicalCore> cores_within(const CpuTopology &topology, const std::vector<int> &cpus);

// How many cores hold some of `cpus` and also PUs outside `owned` (a superset of `cpus`):
// those siblings belong to someone else (another job on a node Slurm shares by hyperthread),
// who may time on them.
int cores_with_siblings_outside(const CpuTopology &topology, const std::vector<int> &cpus,
                                const std::vector<int> &owned);

// The cores `cpus` touch, as indexes into topology.cores (a CPU the topology does not list
// stands for a core of its own, numbered past them), ascending and distinct.
std::vector<long> core_ids(const CpuTopology &topology, const std::vector<int> &cpus);

// Whether two CPU sets touch one physical core (the same CPU, or SMT siblings).
bool share_a_core(const CpuTopology &topology, const std::vector<int> &a, const std::vector<int> &b);
// The same for core_ids() of each.
bool share_a_core(const std::vector<long> &core_ids_a, const std::vector<long> &core_ids_b);

}  // namespace hpcreward
