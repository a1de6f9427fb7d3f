#include "bench_node/cuda/cuda_source_checks.hpp"

#include "bench_node/cuda/cuda_attribute_policy.hpp"
#include "bench_node/cuda/cuda_preprocessor_policy.hpp"
#include "bench_node/source_checks/attribute_rules.hpp"
#include "bench_node/source_checks/finding.hpp"
#include "bench_node/source_checks/preprocessor_rules.hpp"
#include "common/node_failure.hpp"
#include "common/stage_libraries.hpp"

namespace hpcreward {

namespace {

namespace sc = source_checks;

std::vector<sc::Finding> findings_of(const std::vector<sc::Token> &tokens, CutlassAccess access) {
  std::vector<sc::Finding> findings = sc::preprocessor_findings(tokens, cuda_source::cuda_preprocessor_table(access));
  for (const sc::Token &token : tokens)
    if (token.is("__managed__"))
      findings.push_back({Status::forbidden, token.line,
                          "__managed__ at line " + std::to_string(token.line) +
                              " makes managed memory (page faults and migrations can hang a shared GPU)"});
  for (sc::Finding &finding : sc::attribute_findings(tokens, cuda_source::cuda_attribute_table()))
    findings.push_back(std::move(finding));
  return findings;
}

// Whether `matmul` appears as an identifier (not in a comment or a string).
bool mentions_matmul(const std::vector<sc::Token> &tokens) {
  for (const sc::Token &token : tokens)
    if (token.kind == sc::TokenKind::identifier && token.text == "matmul") return true;
  return false;
}

}  // namespace

Verdict CudaSourceChecks::check_source(const BenchTask &task) {
  if (task.source.find('\0') != std::string::npos)
    return {Status::format_error, "the source contains a NUL byte (it must be CUDA C++ text)"};
  const CutlassAccess access = cutlass_access(task.libraries);
  if (access != CutlassAccess::none && !cute_available_)
    return {Status::compile_error, std::string(node_failure::kNoCuteHeaders) + " (stage " + task.stage +
                                       " allows CuTe): " + std::string(kCuteInstallHint)};
  if (access == CutlassAccess::all && !cutlass_utilities_)
    return {Status::compile_error, std::string(node_failure::kNoCutlassUtilities) + " (stage " + task.stage +
                                       " allows all of CUTLASS): " + std::string(kCuteInstallHint)};
  const std::vector<sc::Token> tokens = sc::lex_c(task.source, cuda_source::cuda_lex_options());
  if (std::vector<sc::Finding> findings = findings_of(tokens, access); !findings.empty())
    return sc::verdict_for(std::move(findings));
  if (!mentions_matmul(tokens))
    return {Status::format_error,
            "no matmul in the source (expected extern \"C\" " + entry_point_signature(task.problem) + ")"};
  return {};
}

}  // namespace hpcreward
