#pragma once
// The audit of a compiled candidate before the runner loads it (docs/design.md "Running
// untrusted code"): the shared object is read with libelf, never loaded, and refused when
//   - it exports no function matmul (format_error), or matmul is data or an ifunc;
//   - anything of it runs at load or unload time (constructor, destructor, ifunc, .init)
//     beyond what the toolchain adds to an empty candidate (toolchain_baseline.hpp);
//   - it has a writable and executable segment or needs an executable stack;
//   - it needs a library, imports a symbol or exports a name its language's tables refuse
//     (symbol_rules.hpp);
//   - it fails a rule of the language's own (CUDA: system calls in its host code).
// One audit for every language; what differs is the AuditTable: C's in c_object_audit.hpp,
// CUDA's in ../cuda/cuda_object_audit.hpp. An object that can't be read is a compile_error,
// as one that fails to load would be. Thread-safe: one instance may serve every worker
// thread of a rank.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "bench_node/checks/candidate_check.hpp"
#include "bench_node/checks/compiler.hpp"
#include "bench_node/object_audit/symbol_rules.hpp"
#include "bench_node/object_audit/toolchain_baseline.hpp"

namespace hpcreward {

struct AuditTable {
  std::string name;             // the check's, in reasons and logs
  std::string baseline_source;  // the empty candidate the toolchain baseline is built from
  const ImportTable *imports = nullptr;
  ExportTable exports;
  // The language's own rule on the object's file after the shared ones; null: none.
  std::function<Verdict(const std::filesystem::path &object)> own_rule;
};

class ObjectAudit : public CandidateCheck {
 public:
  // `baseline_compiler` must compile the way the candidates' compiler does. The audit's
  // private directory for the baseline builds goes into `work_root` ($TMPDIR when empty)
  // and is removed with the audit.
  ObjectAudit(std::unique_ptr<Compiler> baseline_compiler, const std::filesystem::path &work_root,
              AuditTable table);
  ~ObjectAudit() override;
  ObjectAudit(const ObjectAudit &) = delete;
  ObjectAudit &operator=(const ObjectAudit &) = delete;

  std::string_view name() const override { return table_.name; }
  // ok, forbidden or format_error; compile_error when the object can't be read. Throws
  // std::runtime_error only when the baseline can't be built (an internal failure).
  Verdict check_object(const BenchTask &task, const std::filesystem::path &object) override;

 private:
  AuditTable table_;
  std::filesystem::path owned_root_;  // the audit's private directory, removed in the destructor
  BaselineCache baselines_;
};

}  // namespace hpcreward
