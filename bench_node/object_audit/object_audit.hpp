#pragma once
// The audit of a compiled candidate before the runner loads it (docs/design.md "Running
// untrusted code"): the shared object is read with libelf, never loaded, and refused when
//   - it exports no function matmul (format_error), or matmul is data or an ifunc;
//   - anything of it runs at load or unload time (constructor, destructor, ifunc, .init);
//   - it has a writable and executable segment or needs an executable stack;
//   - it needs a library other than libc, libm, libmvec, libgomp, libgcc_s, the loader;
//   - it imports anything but libm, memory and OpenMP runtime functions;
//   - it exports a symbol of those libraries or OpenBLAS, of the harness, or a reserved one.
// The allow-lists are in symbol_policy.hpp; what the toolchain adds by itself is measured
// by compiling an empty candidate with the same flags (toolchain_baseline.hpp).
#include <filesystem>
#include <memory>
#include <string_view>

#include "bench_node/checks/candidate_check.hpp"
#include "bench_node/checks/compiler.hpp"
#include "bench_node/object_audit/library_symbols.hpp"
#include "bench_node/object_audit/toolchain_baseline.hpp"

namespace hpcreward {

struct ObjectAuditOptions {
  GccOptions compiler;               // compiles the baselines: the candidates' compiler
  // Where the audit makes its private directory (mode 0700) for the baseline builds,
  // removed with the audit; empty: $TMPDIR.
  std::filesystem::path work_root;
};

class ObjectAudit : public CandidateCheck {
 public:
  // Loads the system libraries (LibrarySymbols); throws std::runtime_error if it can't.
  explicit ObjectAudit(const ObjectAuditOptions &options = {});
  // `baseline_compiler` must compile the way the candidates' compiler does.
  ObjectAudit(std::unique_ptr<Compiler> baseline_compiler, std::filesystem::path work_root);
  ~ObjectAudit() override;
  ObjectAudit(const ObjectAudit &) = delete;
  ObjectAudit &operator=(const ObjectAudit &) = delete;

  std::string_view name() const override { return "object audit"; }
  // ok, forbidden or format_error; compile_error when the object can't be read. Throws
  // std::runtime_error only when the baseline can't be built (an internal failure).
  Verdict check_object(const BenchTask &task, const std::filesystem::path &object) override;

 private:
  std::filesystem::path owned_root_;  // the audit's private directory, removed in the destructor
  LibrarySymbols libraries_;
  BaselineCache baselines_;
};

}  // namespace hpcreward
