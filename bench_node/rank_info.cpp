#include "bench_node/rank_info.hpp"

#include <unistd.h>

#include "bench_node/compiler.hpp"
#include "bench_node/cpu_affinity.hpp"
#include "bench_node/reference_gemm.hpp"

namespace hpcreward {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

RankInfo collect_rank_info(int rank, const std::string &cc) {
  RankInfo info;
  info.rank = rank;
  info.host = host_name();
  info.cores = affinity_cpu_count();
  info.compiler_version = compiler_version(cc);
  if (info.compiler_version.empty()) info.compiler_version = cc + " (version unknown)";
  info.blas_version = blas_version();
  return info;
}

}  // namespace hpcreward
