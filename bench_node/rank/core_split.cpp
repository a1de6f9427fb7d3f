#include "bench_node/rank/core_split.hpp"

#include <algorithm>
#include <numeric>
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

// A GPU rank's ask without its even-share floor: enough cores, at most half the node among GPU ranks.
int capped_gpu_rank_cores(int node_cores, int gpu_ranks) {
  constexpr int kEnough = 8;  // 4 to 6 compile workers, the measurers and their executors
  return std::max(1, std::min(kEnough, node_cores / (2 * gpu_ranks)));
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

int default_gpu_rank_cores(int node_cores, int ranks, int gpu_ranks) {
  if (gpu_ranks <= 0 || ranks <= 0) return 0;
  return std::max(node_cores / ranks, capped_gpu_rank_cores(node_cores, gpu_ranks));
}

int default_cpu_ranks(int node_cores, int gpu_ranks) {
  if (gpu_ranks <= 0) return std::max(1, node_cores);
  // With these ranks default_gpu_rank_cores' even share is one core at most (more than half
  // the cores are ranks), so each GPU rank takes its capped ask.
  return std::max(0, node_cores - gpu_ranks * capped_gpu_rank_cores(node_cores, gpu_ranks));
}

std::vector<int> core_counts(int total_cores, const std::vector<int> &wants) {
  const int ranks = static_cast<int>(wants.size());
  std::vector<int> counts(wants.size(), 0);
  if (ranks == 0) return counts;
  std::vector<int> asking;
  long asked = 0;
  for (int i = 0; i < ranks; ++i)
    if (wants[static_cast<std::size_t>(i)] > 0) {
      asking.push_back(i);
      asked += wants[static_cast<std::size_t>(i)];
    }
  const int others = ranks - static_cast<int>(asking.size());
  // The asks, shrunk in proportion when the others would not keep one core each.
  const long room = total_cores - others;
  for (int i : asking) {
    const long want = wants[static_cast<std::size_t>(i)];
    counts[static_cast<std::size_t>(i)] =
        static_cast<int>(std::max(1L, asked <= room ? want : want * room / std::max(asked, 1L)));
  }
  // Rounding each shrunk ask up to one core may overshoot the room: the largest give one back.
  while (std::accumulate(counts.begin(), counts.end(), 0L) > std::max(room, static_cast<long>(asking.size())))
    --*std::max_element(counts.begin(), counts.end());
  int left = total_cores - std::accumulate(counts.begin(), counts.end(), 0);
  if (others > 0) {
    for (int i = 0, other = 0; i < ranks; ++i)
      if (wants[static_cast<std::size_t>(i)] <= 0)
        counts[static_cast<std::size_t>(i)] = left / others + (other++ < left % others ? 1 : 0);
  } else {
    for (std::size_t turn = 0; left > 0; ++turn, --left) ++counts[static_cast<std::size_t>(asking[turn % asking.size()])];
  }
  return counts;
}

CoreShare split_cores(const std::vector<PhysicalCore> &cores, int index, const std::vector<int> &wants) {
  const int total = static_cast<int>(cores.size());
  const int count = static_cast<int>(wants.size());
  const bool anyone_asks = std::any_of(wants.begin(), wants.end(), [](int want) { return want > 0; });
  if (!anyone_asks || count > total || index < 0 || index >= count) return split_cores(cores, index, count);
  const std::vector<int> counts = core_counts(total, wants);
  const int begin = std::accumulate(counts.begin(), counts.begin() + index, 0);
  CoreShare share;
  for (int i = begin; i < begin + counts[static_cast<std::size_t>(index)]; ++i)
    share.cpus.insert(share.cpus.end(), cores[static_cast<std::size_t>(i)].cpus.begin(),
                      cores[static_cast<std::size_t>(i)].cpus.end());
  share.cores = counts[static_cast<std::size_t>(index)];
  std::sort(share.cpus.begin(), share.cpus.end());
  return share;
}

}  // namespace hpcreward
