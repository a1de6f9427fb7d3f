#pragma once
// The object audit (object_audit/object_audit.hpp, the rules shared with C) of a CUDA
// candidate, before the GPU runner loads it: libelf and capstone in the rank's own process (no
// fork: GPU ranks are multithreaded), never loaded or run. What is CUDA's:
//   - the baselines are built by nvcc from kCudaBaselineSource (nvcc's registration code runs
//     at load time; only what goes beyond it is refused);
//   - the lists: DT_NEEDED beyond libcudart.so.*, libstdc++, libm, libgcc_s, libc; imports
//     not on the CUDA allow-list, each refusal with its reason; exports of the harness's, a
//     reserved or a CUDA name (cuda_symbol_policy.hpp);
//   - last, a system call or clock instruction in the host code (host_code_scan.hpp): inline
//     asm in host code is legal CUDA C++, so the audit reads what the host code really is.
// Device code is not audited here: a GPU thread has no system calls (README.md).
#include <filesystem>
#include <memory>

#include "bench_node/checks/compiler.hpp"
#include "bench_node/cuda/nvcc_compiler.hpp"
#include "bench_node/object_audit/object_audit.hpp"

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
  std::filesystem::path work_root;  // where the audit's private directory goes; empty: $TMPDIR
};

// forbidden when the host code of the object at `path` has a system call or clock
// instruction; compile_error when it can't be read.
Verdict check_host_code(const std::filesystem::path &path);

AuditTable cuda_audit_table();

std::unique_ptr<ObjectAudit> cuda_object_audit(const CudaObjectAuditOptions &options);
// `baseline_compiler` must compile the way the candidates' compiler does.
std::unique_ptr<ObjectAudit> cuda_object_audit(std::unique_ptr<Compiler> baseline_compiler,
                                               const std::filesystem::path &work_root);

}  // namespace hpcreward
