#include "bench_node/rank/core_split.hpp"

#include <algorithm>
#include <set>

#include "bench_node/process/cpu_affinity.hpp"

namespace hpcreward {

namespace {

int distinct_cores(const std::vector<PhysicalCore> &cores, const std::vector<int> &cpus) {
  const std::set<int> mine(cpus.begin(), cpus.end());
  return static_cast<int>(std::count_if(cores.begin(), cores.end(), [&](const PhysicalCore &core) {
    return std::any_of(core.cpus.begin(), core.cpus.end(), [&](int cpu) { return mine.count(cpu) > 0; });
  }));
}

}  // namespace

CoreShare split_cores(const std::vector<PhysicalCore> &cores, int index, int count) {
  CoreShare share;
  const int total = static_cast<int>(cores.size());
  if (total == 0) return share;
  if (count <= 1 || index < 0 || index >= count) count = 1, index = 0;
  if (count <= total) {
    const int per = total / count, extra = total % count;
    const int begin = index * per + std::min(index, extra);
    const int size = per + (index < extra ? 1 : 0);
    for (int i = begin; i < begin + size; ++i)
      share.cpus.insert(share.cpus.end(), cores[static_cast<std::size_t>(i)].cpus.begin(),
                        cores[static_cast<std::size_t>(i)].cpus.end());
    share.cores = size;
  } else {
    std::vector<int> in_core_order;
    for (const PhysicalCore &core : cores) in_core_order.insert(in_core_order.end(), core.cpus.begin(), core.cpus.end());
    share.cpus = partition_cpus(in_core_order, index, count);
    share.cores = distinct_cores(cores, share.cpus);
    share.whole_cores = false;
  }
  std::sort(share.cpus.begin(), share.cpus.end());
  return share;
}

}  // namespace hpcreward
