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

bool cpu_supports_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") != 0;
}

RankInfo collect_rank_info(int rank, const std::string &cc, bool no_avx512) {
  RankInfo info;
  info.rank = rank;
  info.host = host_name();
  info.cores = affinity_cpu_count();
  info.compiler_version = compiler_version(cc);
  if (info.compiler_version.empty()) info.compiler_version = cc + " (version unknown)";
  info.blas_version = blas_version();
  info.avx512 = !no_avx512 && cpu_supports_avx512();
  return info;
}

}  // namespace hpcreward
