#include "bench_node/cuda/cuda_pragma_policy.hpp"

#include "bench_node/source_checks/pragma_rules.hpp"

namespace hpcreward::cuda_source {

namespace {

constexpr std::string_view kAllowed[] = {
    "unroll", "once", "message", "STDC",
    // diagnostics, in nvcc's spellings old and new
    "nv_diag_suppress", "nv_diag_default", "nv_diag_warning", "nv_diag_error", "nv_diag_once",
    "nv_diagnostic", "diag_suppress", "diag_default", "diag_warning",
};

constexpr RefusedName kRefused[] = {
    {"nv_abi", "changes the calling convention the compiler chose"},
    {"omp", "asks for host OpenMP, which CUDA candidates do not have"},
};

}  // namespace

const NameTable &cuda_pragma_table() {
  static const NameTable table{
      .allowed = joined<std::string_view>({kAllowed, source_checks::gcc_allowed_pragmas()}),
      .refused = joined<RefusedName>({kRefused, source_checks::gcc_refused_pragmas()})};
  return table;
}

}  // namespace hpcreward::cuda_source
