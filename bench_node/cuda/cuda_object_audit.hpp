#pragma once
// The audit of a compiled CUDA candidate before the GPU runner loads it (docs/design.md "Running
// untrusted code"), read with libelf and capstone in the rank's own process (no fork: GPU
// ranks are multithreaded), never loaded or run. Refused, in this order:
//   - no exported function matmul (format_error; a C++-mangled one is named: add extern "C"),
//     or a matmul that is data or an ifunc (forbidden);
//   - code that runs at load or unload time beyond nvcc's own (constructors, destructors,
//     global objects with dynamic initialization, init_priority, ifuncs): more .init_array,
//     .fini_array or .init/.fini than an empty candidate built the same way has;
//   - a writable and executable segment, an executable stack;
//   - DT_NEEDED beyond libcudart.so.*, libstdc++, libm, libgcc_s, libc;
//   - an import not on the CUDA allow-list (cuda_symbol_policy.hpp), with its own reason;
//   - an export of the harness's, a reserved or a CUDA name;
//   - a system call or clock instruction in the host code (host_code_scan.hpp).
// Device code is not audited here: a GPU thread has no system calls (README.md).
// An object that can't be read is a compile_error, as the C audit has it.
#include <filesystem>
#include <memory>
#include <string_view>

#include "bench_node/checks/candidate_check.hpp"
#include "bench_node/checks/compiler.hpp"
#include "bench_node/cuda/nvcc_compiler.hpp"
#include "bench_node/object_audit/elf_object.hpp"
#include "bench_node/object_audit/toolchain_baseline.hpp"
#include "bench_node/process/work_dir.hpp"

namespace hpcreward {

// The empty CUDA candidate the audit's baselines are built from: one kernel, one launch.
inline constexpr const char *kCudaBaselineSource =
    "__global__ void hpcreward_baseline_kernel(double *C) { C[0] = 0; }\n"
    "extern \"C\" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  (void)m; (void)n; (void)k; (void)A; (void)B;\n"
    "  hpcreward_baseline_kernel<<<1, 1>>>(C);\n"
    "}\n";

struct CudaObjectAuditOptions {
  NvccOptions compiler;  // builds the baselines: the candidates' compiler and arch
  // Where the audit makes its private directory for the baseline builds, removed with the
  // audit; empty: $TMPDIR.
  std::filesystem::path work_root;
};

// The rules after the entry point and the baseline, each a pure function of what was read.
Verdict check_cuda_libraries(const ElfObject &object, const ToolchainBaseline &baseline);
Verdict check_cuda_imports(const ElfObject &object, const ToolchainBaseline &baseline);
Verdict check_cuda_exports(const ElfObject &object, const ToolchainBaseline &baseline);
// format_error for a missing matmul, naming a C++-mangled one when there is one.
Verdict check_cuda_entry_point(const ElfObject &object);

// Thread-safe: one instance may serve every worker thread of a rank.
class CudaObjectAudit : public CandidateCheck {
 public:
  explicit CudaObjectAudit(const CudaObjectAuditOptions &options);
  // `baseline_compiler` must compile the way the candidates' compiler does.
  CudaObjectAudit(std::unique_ptr<Compiler> baseline_compiler, const std::filesystem::path &work_root);
  ~CudaObjectAudit() override;
  CudaObjectAudit(const CudaObjectAudit &) = delete;
  CudaObjectAudit &operator=(const CudaObjectAudit &) = delete;

  std::string_view name() const override { return "CUDA object audit"; }
  // ok, forbidden or format_error; compile_error when the object can't be read. Throws
  // std::runtime_error only when the baseline can't be built (an internal failure).
  Verdict check_object(const BenchTask &task, const std::filesystem::path &object) override;

 private:
  std::unique_ptr<WorkDir> root_;  // the audit's private directory, made first
  BaselineCache baselines_;
};

}  // namespace hpcreward
