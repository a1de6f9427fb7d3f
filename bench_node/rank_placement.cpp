#include "bench_node/rank_placement.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>

#include "bench_node/cpu_affinity.hpp"

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

std::vector<Mask> gather_masks(MPI_Comm node, const Mask &mine) {
  int count = 1;
  MPI_Comm_size(node, &count);
  std::vector<Mask> all(static_cast<std::size_t>(count));
  MPI_Allgather(mine.data(), kWords, MPI_UNSIGNED_LONG_LONG, all.data(), kWords,
                MPI_UNSIGNED_LONG_LONG, node);
  return all;
}

}  // namespace

Placement place_bench_rank(bool apply, bool gpu_rank) {
  Placement placement;
  placement.cpus = affinity_cpus();
  MPI_Comm node = node_bench_comm();
  MPI_Comm_rank(node, &placement.local_index);
  MPI_Comm_size(node, &placement.local_count);
  std::vector<int> kinds(static_cast<std::size_t>(placement.local_count));
  int mine_kind = gpu_rank ? 1 : 0;
  MPI_Allgather(&mine_kind, 1, MPI_INT, kinds.data(), 1, MPI_INT, node);
  placement.kind_index = static_cast<int>(std::count(kinds.begin(), kinds.begin() + placement.local_index, mine_kind));

  std::vector<Mask> masks = gather_masks(node, to_mask(placement.cpus));
  const bool shared = placement.local_count > 1 &&
                      std::all_of(masks.begin(), masks.end(),
                                  [&](const Mask &mask) { return mask == masks.front(); });
  if (shared && apply) {
    const std::vector<int> share =
        partition_cpus(placement.cpus, placement.local_index, placement.local_count);
    if (set_affinity(share)) {
      placement.cpus = share;
      placement.changed = true;
    }
  }
  masks = gather_masks(node, to_mask(placement.cpus));
  MPI_Comm_free(&node);
  const Mask mine = masks[static_cast<std::size_t>(placement.local_index)];
  for (int rank = 0; rank < placement.local_count; ++rank)
    if (rank != placement.local_index)
      for (int word = 0; word < kWords; ++word)
        if (mine[word] & masks[static_cast<std::size_t>(rank)][word]) placement.exclusive = false;
  return placement;
}

}  // namespace hpcreward
