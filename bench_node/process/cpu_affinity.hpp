#pragma once
// The CPUs this process may run on (its affinity mask), and the split of a CPU list by CPU
// number (core_split.hpp splits by physical cores and falls back to it with fewer cores
// than ranks).
#include <string>
#include <vector>

namespace hpcreward {

// Number of CPUs in the calling thread's affinity mask; at least 1.
int affinity_cpu_count();

// The CPU numbers in the calling thread's affinity mask, ascending.
std::vector<int> affinity_cpus();

// Restricts the calling thread (and children started afterwards) to `cpus`.
bool set_affinity(const std::vector<int> &cpus);

// The share of `cpus` for rank `index` of `count` ranks: contiguous, disjoint blocks that
// use every CPU; with more ranks than CPUs, one CPU each, reused round-robin.
std::vector<int> partition_cpus(const std::vector<int> &cpus, int index, int count);

// "0-3,8"
std::string describe_cpus(const std::vector<int> &cpus);

}  // namespace hpcreward
