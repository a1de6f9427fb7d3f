#pragma once
// How the benchmark ranks of one node split the CPUs they share: by physical cores, so a
// timed run never has another rank's timed run or compile on an SMT sibling of its cores.
#include <vector>

#include "bench_node/rank/cpu_topology.hpp"

namespace hpcreward {

struct CoreShare {
  std::vector<int> cpus;    // the rank's CPUs (every PU of its cores that is in the set), ascending
  int cores = 0;            // physical cores they make up (a partly owned core counts once)
  bool whole_cores = true;  // false: fewer cores than ranks, so some ranks share cores
};

// The share of rank `index` of `count` ranks over `cores` (cores_within(): the shared set's
// cores in topology order). With at least as many cores as ranks: contiguous, disjoint blocks
// of whole cores that use every core, in package order (a block crosses packages only where
// the counts do not divide evenly). With fewer: the PUs in core order are split as CPUs (siblings end up in
// neighbouring ranks), and with fewer PUs than ranks one PU each, reused round-robin.
CoreShare split_cores(const std::vector<PhysicalCore> &cores, int index, int count);

// The same with wanted sizes: `wants[i]` is the number of cores rank i asks for (a GPU rank's
// compile workers and measurers), 0 for an even share of what the others leave. Each rank
// keeps at least one core: asks that do not fit shrink in proportion; cores nobody takes go to
// the ranks that asked, in turn. Blocks stay contiguous in rank order. With fewer cores than
// ranks, or when nobody asks, it is split_cores.
CoreShare split_cores(const std::vector<PhysicalCore> &cores, int index, const std::vector<int> &wants);
// Cores a GPU rank asks for when it shares its node's CPUs with other benchmark ranks and asks
// for no number (--gpu-rank-cores 0): enough for its compile workers and measurers (nvcc takes
// about 1.6 s a candidate), at most half the node's cores among its GPU ranks, and never less
// than an even share.
int default_gpu_rank_cores(int node_cores, int ranks, int gpu_ranks);

// CPU ranks that, beside `gpu_ranks` GPU ranks each taking its default cores, give every CPU
// rank a physical core of its own on a node of `node_cores` cores: the launcher's default
// (jobs/local.sh without --np). 0 when the GPU ranks need every core.
int default_cpu_ranks(int node_cores, int gpu_ranks);

// How many cores each rank gets under split_cores(cores, index, wants), in rank order.
std::vector<int> core_counts(int total_cores, const std::vector<int> &wants);

}  // namespace hpcreward
