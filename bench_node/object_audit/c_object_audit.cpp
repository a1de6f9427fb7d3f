#include "bench_node/object_audit/c_object_audit.hpp"

#include "bench_node/object_audit/c_symbol_policy.hpp"

namespace hpcreward {

AuditTable c_audit_table() {
  return {.name = "object audit",
          .baseline_source = kCBaselineSource,
          .imports = &c_import_table(),
          .exports = c_export_table(std::make_shared<const LibrarySymbols>()),
          .own_rule = nullptr};
}

std::unique_ptr<ObjectAudit> c_object_audit(const ObjectAuditOptions &options) {
  return std::make_unique<ObjectAudit>(std::make_unique<GccCompiler>(options.compiler), options.work_root,
                                       c_audit_table());
}

}  // namespace hpcreward
