#include "bench_node/cuda/cuda_object_audit.hpp"

#include <cstdio>
#include <string>

#include "bench_node/cuda/cuda_symbol_policy.hpp"
#include "bench_node/cuda/host_code_scan.hpp"
#include "bench_node/object_audit/audit_rules.hpp"
#include "common/node_failure.hpp"

namespace hpcreward {

namespace {

Verdict forbidden(std::string reason) { return {Status::forbidden, std::move(reason)}; }

std::unique_ptr<WorkDir> private_root(const std::filesystem::path &parent) {
  std::filesystem::path directory = parent;
  if (directory.empty())
    directory = std::filesystem::temp_directory_path();
  else
    ensure_private_directory(directory);
  return std::make_unique<WorkDir>(directory, "hpcreward-cuda-audit");
}

std::string hex(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

Verdict check_host_code(const std::filesystem::path &path) {
  const HostCodeScan scan = scan_host_code(path);
  if (!scan.read) return {Status::compile_error, std::string(node_failure::kHostCodeUnreadable) + ": " + scan.error};
  if (scan.found.empty()) return {};
  const HostInstruction &first = scan.found.front();
  std::string reason = "the host code has a " + first.text + " instruction at " + hex(first.address) +
                       " (" + first.why + "; inline asm in host code)";
  if (scan.found.size() > 1) reason += " (+" + std::to_string(scan.found.size() - 1) + " more)";
  return forbidden(std::move(reason));
}

}  // namespace

Verdict check_cuda_entry_point(const ElfObject &object) {
  Verdict verdict = check_entry_point(object);
  if (verdict.status != Status::format_error) return verdict;
  for (const ElfSymbol &symbol : object.dynamic_symbols)
    if (symbol.exported() && symbol.name.rfind("_Z6matmul", 0) == 0)
      return {Status::format_error, "no matmul entry point: the object exports " + symbol.name +
                                        ", a C++ name (declare matmul extern \"C\")"};
  return verdict;
}

namespace {
const ImportPolicy &cuda_import_policy() {
  static const ImportPolicy policy{&cuda_symbol_policy::allowed_library, cuda_symbol_policy::kAllowedLibraries,
                                   &cuda_symbol_policy::import_refusal};
  return policy;
}
}  // namespace

// The object audit's own rules with CUDA's lists.
Verdict check_cuda_libraries(const ElfObject &object, const ToolchainBaseline &baseline) {
  return check_libraries(object, baseline, cuda_import_policy());
}

Verdict check_cuda_imports(const ElfObject &object, const ToolchainBaseline &baseline) {
  return check_imports(object, baseline, cuda_import_policy());
}

Verdict check_cuda_exports(const ElfObject &object, const ToolchainBaseline &baseline) {
  for (const ElfSymbol &symbol : object.dynamic_symbols) {
    if (!symbol.exported() || symbol.name == "matmul" || baseline.exports.count(symbol.name) != 0)
      continue;
    if (auto why = cuda_symbol_policy::export_refusal(symbol.name))
      return forbidden("the object defines " + symbol.name + ", " + *why);
  }
  return {};
}

CudaObjectAudit::CudaObjectAudit(const CudaObjectAuditOptions &options)
    : CudaObjectAudit(std::make_unique<NvccCompiler>(options.compiler), options.work_root) {}

CudaObjectAudit::CudaObjectAudit(std::unique_ptr<Compiler> baseline_compiler,
                                 const std::filesystem::path &work_root)
    : root_(private_root(work_root)),
      baselines_(std::move(baseline_compiler), root_->path(), kCudaBaselineSource) {}

CudaObjectAudit::~CudaObjectAudit() = default;

Verdict CudaObjectAudit::check_object(const BenchTask &task, const std::filesystem::path &path) {
  auto read = read_elf_object(path);
  if (auto *error = std::get_if<std::string>(&read))
    return {Status::compile_error, std::string(node_failure::kObjectUnreadable) + ": " + *error};
  const ElfObject &object = std::get<ElfObject>(read);

  // The entry point first: a candidate without one is told so, whatever else it does.
  if (Verdict verdict = check_cuda_entry_point(object); !verdict.ok()) return verdict;
  const ToolchainBaseline &baseline = baselines_.for_flags(task.compiler_flags);
  for (Verdict verdict : {check_load_time_code(object, baseline), check_segments(object),
                          check_cuda_libraries(object, baseline), check_cuda_imports(object, baseline),
                          check_cuda_exports(object, baseline)})
    if (!verdict.ok()) return verdict;
  return check_host_code(path);
}

}  // namespace hpcreward
