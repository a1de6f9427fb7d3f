#pragma once
// The object audit (object_audit.hpp) of a C candidate: gcc builds the baselines, the
// symbol lists are C's (c_symbol_policy.hpp), and no rule of its own (the source checks
// have read every line of code; the runner's seccomp filter stands behind both).
#include <filesystem>
#include <memory>

#include "bench_node/checks/compiler.hpp"
#include "bench_node/object_audit/object_audit.hpp"

namespace hpcreward {

// The empty C candidate the baselines are built from.
inline constexpr const char *kCBaselineSource =
    "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  (void)m; (void)n; (void)k; (void)A; (void)B; (void)C;\n"
    "}\n";

struct ObjectAuditOptions {
  GccOptions compiler;  // compiles the baselines: the candidates' compiler
  std::filesystem::path work_root;  // where the audit's private directory goes; empty: $TMPDIR
};

// Loads the system libraries (LibrarySymbols); throws std::runtime_error if it can't.
AuditTable c_audit_table();

std::unique_ptr<ObjectAudit> c_object_audit(const ObjectAuditOptions &options = {});

}  // namespace hpcreward
