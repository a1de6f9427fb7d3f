#include "bench_node/cuda/cuda_source_checks.hpp"

#include "bench_node/cuda/cuda_source_rules.hpp"
#include "bench_node/source_checks/finding.hpp"

namespace hpcreward {

Verdict CudaSourceChecks::check_source(const BenchTask &task) {
  if (task.source.find('\0') != std::string::npos)
    return {Status::format_error, "the source contains a NUL byte (it must be CUDA C++ text)"};
  const std::vector<source_checks::Token> tokens =
      source_checks::lex_c(task.source, cuda_source::cuda_lex_options());
  if (std::vector<source_checks::Finding> findings = cuda_source::cuda_source_findings(tokens);
      !findings.empty())
    return source_checks::verdict_for(std::move(findings));
  if (!cuda_source::mentions_matmul(tokens))
    return {Status::format_error,
            "no matmul in the source (expected extern \"C\" void matmul(int m, int n, int k, "
            "const " + element_type(task.problem.precision) + " *A, const " +
                element_type(task.problem.precision) + " *B, " +
                element_type(task.problem.precision) + " *C))"};
  return {};
}

}  // namespace hpcreward
