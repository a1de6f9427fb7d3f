#pragma once
// Placing a benchmark rank on its node (MPI). The node's benchmark ranks split the CPUs the
// launcher gave them by physical cores (hwloc's topology, cpu_topology.hpp), so no timed run
// has another rank on its core's SMT sibling: when their CPU sets touch a common core
// (mpirun --bind-to none, as jobs/local.sh does, gives them all the same set), each takes a
// disjoint share of whole cores of the union, a GPU rank the larger share its compile workers
// and measurers need; when the launcher already bound them to separate cores, nothing changes.
#include <string>
#include <vector>

namespace hpcreward {

struct Placement {
  bool changed = false;
  std::vector<int> cpus;  // the rank's CPUs afterwards
  int cores = 1;          // physical cores among `cpus` (one OpenMP thread each)
  int local_index = 0;    // among the benchmark ranks of this node
  int local_count = 1;
  bool exclusive = true;  // no other benchmark rank of the node has a CPU on any of its cores
  int kind_index = 0;     // among the benchmark ranks of this node of the same kind (CPU or GPU):
                          // a GPU rank's device when --gpu-device is auto
  int kind_count = 1;     // the benchmark ranks of this node of that kind
  // Cores of the rank whose SMT siblings lie outside every benchmark rank's CPUs (another
  // job, or the coordinator, may run there).
  int cores_with_siblings_outside = 0;
  std::string topology_error;         // hwloc could not read the topology: split by CPU number
  std::string hidden_core_sharing;    // why the host may hide core sharing (a VM); "" if nothing says so
};

// Collective over the benchmark ranks (every world rank but 0); rank 0 takes no part.
// Every benchmark rank must call it; with `apply` false it only reports.
// `gpu_rank`: this rank is a GPU rank (it counts towards kind_index of GPU ranks only).
// `gpu_rank_cores`: the cores a GPU rank asks for (0: default_gpu_rank_cores, core_split.hpp); CPU ranks share
// what the GPU ranks leave evenly (core_split.hpp).
Placement place_bench_rank(bool apply, bool gpu_rank = false, int gpu_rank_cores = 0);

// The lines a rank prints at start about its placement beyond its CPU list: siblings of its
// cores outside the benchmark ranks' CPUs; on the node's first rank only (they hold for the
// whole node), a topology hwloc could not read and a virtual machine that hides core sharing.
// Empty when there is nothing to say.
std::vector<std::string> placement_notices(const Placement &placement);

// The CPU ranks a launcher starts on this host by default (jobs/local.sh without --np):
// default_cpu_ranks() over the physical cores of this process's CPUs, and what it rests on.
struct DefaultRanks {
  int cpu_ranks = 1;
  int cores = 1;  // physical cores of this process's CPUs (SMT siblings counted once)
  int cpus = 1;
  int gpu_ranks = 0;
  std::string topology_error;       // as in Placement
  std::string hidden_core_sharing;  // as in Placement
  std::string text() const;         // one line for the launcher to print
};
DefaultRanks default_ranks_here(int gpu_ranks);

}  // namespace hpcreward
