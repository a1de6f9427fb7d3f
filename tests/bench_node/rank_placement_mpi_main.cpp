// place_bench_rank under mpirun, as hpcreward-bench calls it: world rank 0 stands for the
// coordinator (takes no part), ranks 1..N split the CPU set mpirun --bind-to none gave them.
// Checks, on this host's real topology: every rank runs on what it reports, ranks that fit
// on separate cores got separate cores and say they are exclusive, and with more ranks than
// cores some say they share. Exit status 0 when every rank agrees.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "bench_node/process/cpu_affinity.hpp"
#include "bench_node/rank/cpu_topology.hpp"
#include "bench_node/rank/rank_placement.hpp"

int main(int argc, char **argv) {
  using namespace hpcreward;
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failures = 0, shared = 0;
  std::size_t host_cores = 0;
  if (rank != 0) {
    host_cores = cores_within(read_host_topology(), affinity_cpus()).size();
    const Placement placement = place_bench_rank(true);
    auto fail = [&](const char *what) {
      std::fprintf(stderr, "rank %d (CPUs %s, %d cores, %s): %s\n", rank, describe_cpus(placement.cpus).c_str(),
                   placement.cores, placement.exclusive ? "exclusive" : "shared", what);
      ++failures;
    };
    const int ranks = size - 1;
    if (placement.local_count != ranks) fail("not every benchmark rank counted on this node");
    if (affinity_cpus() != placement.cpus) fail("runs on other CPUs than it reports");
    if (ranks > 1 && !placement.changed) fail("the shared CPU set was not split");
    if (static_cast<std::size_t>(ranks) <= host_cores && !placement.exclusive) fail("shares a core though enough cores exist");
    shared = placement.exclusive ? 0 : 1;
    for (const std::string &notice : placement_notices(placement)) std::fprintf(stderr, "rank %d: %s\n", rank, notice.c_str());
    std::fprintf(stderr, "rank %d: CPUs %s, %d cores, %s\n", rank, describe_cpus(placement.cpus).c_str(),
                 placement.cores, placement.exclusive ? "exclusive" : "shared");
  }
  int ranks_sharing = 0;
  MPI_Allreduce(&shared, &ranks_sharing, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 1 && static_cast<std::size_t>(size - 1) > host_cores && ranks_sharing == 0) {
    std::fprintf(stderr, "%d ranks on %zu cores and none says it shares a core\n", size - 1, host_cores);
    ++failures;
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
