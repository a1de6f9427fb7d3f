#pragma once
// Placing a benchmark rank on its node (MPI). When the launcher gave every benchmark rank
// of a node the same CPU set (mpirun --bind-to none, as jobs/local.sh does), each rank
// takes a disjoint share of it; when the launcher already bound them apart, nothing changes.
#include <vector>

namespace hpcreward {

struct Placement {
  bool changed = false;
  std::vector<int> cpus;  // the rank's CPUs afterwards
  int local_index = 0;    // among the benchmark ranks of this node
  int local_count = 1;
  bool exclusive = true;  // no other benchmark rank of the node shares any of `cpus`
  int kind_index = 0;     // among the benchmark ranks of this node of the same kind (CPU or GPU):
                          // a GPU rank's device when --gpu-device is auto
};

// Collective over the benchmark ranks (every world rank but 0); rank 0 takes no part.
// Every benchmark rank must call it; with `apply` false it only reports.
// `gpu_rank`: this rank is a GPU rank (it counts towards kind_index of GPU ranks only).
Placement place_bench_rank(bool apply, bool gpu_rank = false);

}  // namespace hpcreward
