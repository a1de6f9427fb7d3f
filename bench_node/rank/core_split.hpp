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

}  // namespace hpcreward
