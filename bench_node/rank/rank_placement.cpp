#include "bench_node/rank/rank_placement.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <set>

#include "bench_node/rank/core_split.hpp"
#include "bench_node/process/cpu_affinity.hpp"
#include "bench_node/rank/cpu_topology.hpp"
#include "bench_node/rank/hidden_core_sharing.hpp"

namespace hpcreward {

namespace {

// The benchmark ranks of this node: a communicator over world ranks 1..N-1 (created
// without rank 0, which runs the coordinator), split by shared memory.
MPI_Comm node_bench_comm() {
  MPI_Group world, bench;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int coordinator = 0;
  MPI_Group_excl(world, 1, &coordinator, &bench);
  MPI_Comm all_bench = MPI_COMM_NULL, node = MPI_COMM_NULL;
  MPI_Comm_create_group(MPI_COMM_WORLD, bench, /*tag=*/7101, &all_bench);
  MPI_Comm_split_type(all_bench, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_free(&all_bench);
  MPI_Group_free(&bench);
  MPI_Group_free(&world);
  return node;
}

constexpr int kWords = 16;  // CPU masks of up to 1024 CPUs
using Mask = std::array<unsigned long long, kWords>;

Mask to_mask(const std::vector<int> &cpus) {
  Mask mask{};
  for (int cpu : cpus)
    if (cpu >= 0 && cpu < kWords * 64) mask[static_cast<std::size_t>(cpu / 64)] |= 1ULL << (cpu % 64);
  return mask;
}

std::vector<int> to_cpus(const Mask &mask) {
  std::vector<int> cpus;
  for (int cpu = 0; cpu < kWords * 64; ++cpu)
    if (mask[static_cast<std::size_t>(cpu / 64)] & (1ULL << (cpu % 64))) cpus.push_back(cpu);
  return cpus;
}

// Every benchmark rank's CPUs on this node, by local index.
std::vector<std::vector<int>> gather_cpus(MPI_Comm node, const std::vector<int> &mine) {
  int count = 1;
  MPI_Comm_size(node, &count);
  std::vector<Mask> masks(static_cast<std::size_t>(count));
  const Mask own = to_mask(mine);
  MPI_Allgather(own.data(), kWords, MPI_UNSIGNED_LONG_LONG, masks.data(), kWords,
                MPI_UNSIGNED_LONG_LONG, node);
  std::vector<std::vector<int>> all;
  for (const Mask &mask : masks) all.push_back(to_cpus(mask));
  return all;
}

std::vector<int> union_of(const std::vector<std::vector<int>> &sets) {
  std::set<int> all;
  for (const auto &cpus : sets) all.insert(cpus.begin(), cpus.end());
  return {all.begin(), all.end()};
}

// For each rank, whether its CPUs touch a core of any other rank's.
std::vector<bool> sharing_a_core(const CpuTopology &topology, const std::vector<std::vector<int>> &sets) {
  std::vector<std::vector<long>> cores;
  for (const std::vector<int> &cpus : sets) cores.push_back(core_ids(topology, cpus));
  std::vector<bool> sharing(sets.size(), false);
  for (std::size_t a = 0; a < cores.size(); ++a)
    for (std::size_t b = a + 1; b < cores.size(); ++b)
      if (share_a_core(cores[a], cores[b])) sharing[a] = sharing[b] = true;
  return sharing;
}

}  // namespace

Placement place_bench_rank(bool apply, bool gpu_rank, int gpu_rank_cores) {
  Placement placement;
  placement.cpus = affinity_cpus();
  const CpuTopology topology = read_host_topology();
  placement.topology_error = topology.error;
  placement.hidden_core_sharing = host_hidden_core_sharing_reason(topology);

  MPI_Comm node = node_bench_comm();
  MPI_Comm_rank(node, &placement.local_index);
  MPI_Comm_size(node, &placement.local_count);
  // Each rank's ask, in one exchange: -1 for a CPU rank (an even share of what the GPU ranks
  // leave), the cores a GPU rank asks for otherwise (0: the default).
  constexpr int kCpuRank = -1;
  std::vector<int> asks(static_cast<std::size_t>(placement.local_count));
  int mine_ask = gpu_rank ? std::max(gpu_rank_cores, 0) : kCpuRank;
  MPI_Allgather(&mine_ask, 1, MPI_INT, asks.data(), 1, MPI_INT, node);
  const auto is_gpu = [](int ask) { return ask != kCpuRank; };
  const auto same_kind = [&](int ask) { return is_gpu(ask) == gpu_rank; };
  placement.kind_index = static_cast<int>(std::count_if(asks.begin(), asks.begin() + placement.local_index, same_kind));
  placement.kind_count = static_cast<int>(std::count_if(asks.begin(), asks.end(), same_kind));

  const auto index = static_cast<std::size_t>(placement.local_index);
  std::vector<std::vector<int>> sets = gather_cpus(node, placement.cpus);
  // Every rank sees the same sets, asks and topology, so all compute the same split of the union.
  const std::vector<bool> sharing = sharing_a_core(topology, sets);
  if (apply && std::find(sharing.begin(), sharing.end(), true) != sharing.end()) {
    const std::vector<PhysicalCore> cores = cores_within(topology, union_of(sets));
    const int gpu_ranks = static_cast<int>(std::count_if(asks.begin(), asks.end(), is_gpu));
    const int fallback = default_gpu_rank_cores(static_cast<int>(cores.size()), placement.local_count, gpu_ranks);
    std::vector<int> wants(asks.size(), 0);
    for (std::size_t i = 0; i < wants.size(); ++i)
      if (is_gpu(asks[i])) wants[i] = asks[i] > 0 ? asks[i] : fallback;
    const CoreShare share = split_cores(cores, placement.local_index, wants);
    if (set_affinity(share.cpus)) {  // fails outside this rank's cgroup: it keeps its set, and says so
      placement.cpus = share.cpus;
      placement.changed = true;
    }
  }
  sets = gather_cpus(node, placement.cpus);
  MPI_Comm_free(&node);
  placement.exclusive = !sharing_a_core(topology, sets)[index];
  placement.cores = std::max(1, static_cast<int>(cores_within(topology, placement.cpus).size()));
  placement.cores_with_siblings_outside =
      cores_with_siblings_outside(topology, placement.cpus, union_of(sets));
  return placement;
}

std::vector<std::string> placement_notices(const Placement &placement) {
  std::vector<std::string> notices;
  const bool first_on_node = placement.local_index == 0;
  if (first_on_node && !placement.topology_error.empty())
    notices.push_back("cannot read the CPU topology (" + placement.topology_error +
                      "): CPUs split by number, SMT siblings unknown");
  if (first_on_node && !placement.hidden_core_sharing.empty())
    notices.push_back("this looks like a virtual machine (" + placement.hidden_core_sharing +
                      "): the host's real core sharing is not visible, so timed runs on \"separate\" "
                      "vCPUs may share a physical core and disturb each other's timings");
  if (placement.cores_with_siblings_outside > 0)
    notices.push_back(std::to_string(placement.cores_with_siblings_outside) +
                      " of its cores have SMT siblings outside the benchmark ranks' CPUs: whatever runs "
                      "there (another job) may disturb its timings");
  return notices;
}

DefaultRanks default_ranks_here(int gpu_ranks) {
  DefaultRanks ranks;
  const std::vector<int> cpus = affinity_cpus();
  const CpuTopology topology = read_host_topology();
  ranks.cpus = static_cast<int>(cpus.size());
  ranks.cores = std::max(1, static_cast<int>(cores_within(topology, cpus).size()));
  ranks.gpu_ranks = std::max(0, gpu_ranks);
  ranks.cpu_ranks = default_cpu_ranks(ranks.cores, ranks.gpu_ranks);
  ranks.topology_error = topology.error;
  ranks.hidden_core_sharing = host_hidden_core_sharing_reason(topology);
  return ranks;
}

std::string DefaultRanks::text() const {
  std::string out = std::to_string(cpu_ranks) + " CPU rank" + (cpu_ranks == 1 ? "" : "s") + ", one per physical core";
  if (gpu_ranks > 0) {
    const int per_gpu_rank = default_gpu_rank_cores(cores, cpu_ranks + gpu_ranks, gpu_ranks);
    out += " beside " + std::to_string(gpu_ranks) + " GPU rank" + (gpu_ranks == 1 ? "" : "s") + " of " +
           std::to_string(per_gpu_rank) + " core" + (per_gpu_rank == 1 ? "" : "s") + " each";
  }
  out += " (" + std::to_string(cores) + " cores, " + std::to_string(cpus) + " CPUs)";
  if (!topology_error.empty())
    out += "; the topology could not be read (" + topology_error + "), so CPUs count as cores";
  if (!hidden_core_sharing.empty())
    out += "; a virtual machine (" + hidden_core_sharing +
           "): its vCPUs count as cores, though the host may run two on one core";
  return out;
}

}  // namespace hpcreward
