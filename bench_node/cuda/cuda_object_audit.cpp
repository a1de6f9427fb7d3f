#include "bench_node/cuda/cuda_object_audit.hpp"

#include <cstdio>
#include <string>

#include "bench_node/cuda/cuda_symbol_policy.hpp"
#include "bench_node/cuda/host_code_scan.hpp"
#include "common/node_failure.hpp"

namespace hpcreward {

namespace {

std::string hex(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

Verdict check_host_code(const std::filesystem::path &path) {
  const HostCodeScan scan = scan_host_code(path);
  if (!scan.read) return {Status::compile_error, std::string(node_failure::kHostCodeUnreadable) + ": " + scan.error};
  if (scan.found.empty()) return {};
  const HostInstruction &first = scan.found.front();
  std::string reason = "the host code has a " + first.text + " instruction at " + hex(first.address) +
                       " (" + first.why + "; inline asm in host code)";
  if (scan.found.size() > 1) reason += " (+" + std::to_string(scan.found.size() - 1) + " more)";
  return {Status::forbidden, std::move(reason)};
}

AuditTable cuda_audit_table() {
  return {.name = "CUDA object audit",
          .baseline_source = kCudaBaselineSource,
          .imports = &cuda_import_table(),
          .exports = cuda_export_table(),
          .own_rule = &check_host_code};
}

std::unique_ptr<ObjectAudit> cuda_object_audit(const CudaObjectAuditOptions &options) {
  return cuda_object_audit(std::make_unique<NvccCompiler>(options.compiler), options.work_root);
}

std::unique_ptr<ObjectAudit> cuda_object_audit(std::unique_ptr<Compiler> baseline_compiler,
                                               const std::filesystem::path &work_root) {
  return std::make_unique<ObjectAudit>(std::move(baseline_compiler), work_root, cuda_audit_table());
}

}  // namespace hpcreward
