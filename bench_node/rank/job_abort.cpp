#include "bench_node/rank/job_abort.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace hpcreward {

void abort_job(int rank, std::string_view kind, const std::string &message) {
  std::fprintf(stderr, "hpcreward-bench[%d]%.*s: %s\n", rank, static_cast<int>(kind.size()), kind.data(),
               message.c_str());
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

}  // namespace hpcreward
