#include "bench_node/rank/rank_info.hpp"

#include "bench_node/checks/compiler.hpp"
#include "bench_node/process/cpu_affinity.hpp"
#include "bench_node/cpu/reference_gemm.hpp"
#include "common/cpu_model.hpp"
#include "common/node_name.hpp"

namespace hpcreward {

std::string host_name() { return node_name(); }

bool cpu_supports_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") != 0;
}

RankInfo collect_rank_info(int rank, const std::string &cc, bool no_avx512) {
  RankInfo info;
  info.rank = rank;
  info.host = host_name();
  info.cpu_model = cpu_model();
  info.cores = affinity_cpu_count();
  info.compiler_version = compiler_version(cc);
  if (info.compiler_version.empty()) info.compiler_version = cc + " (version unknown)";
  info.blas_version = blas_version();
  info.avx512 = !no_avx512 && cpu_supports_avx512();
  return info;
}

}  // namespace hpcreward
