// cuBLAS as a candidate object: what hpcreward-gpu-fidelity hands hpcreward-gpu-executor, so
// the harness measures cuBLAS exactly as it measures a candidate. Built three times, one per
// element type (HPCREWARD_CUBLAS_GEMM: 0 double, 1 float, 2 __half). The handle is created
// when the object is loaded, before the executor's seccomp filter; a trusted benchmark object
// may have a constructor, a candidate may not (the object audit refuses one).
#include <cublas_v2.h>
#include <cuda_fp16.h>

namespace {

cublasHandle_t handle = nullptr;

__attribute__((constructor)) void create_handle() { cublasCreate(&handle); }

}  // namespace

// Row-major C = A B is column-major C^T = B^T A^T.
#if HPCREWARD_CUBLAS_GEMM == 0
extern "C" void matmul(int m, int n, int k, const double *a, const double *b, double *c) {
  const double one = 1, zero = 0;
  cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n);
}
#elif HPCREWARD_CUBLAS_GEMM == 1
extern "C" void matmul(int m, int n, int k, const float *a, const float *b, float *c) {
  const float one = 1, zero = 0;
  // Default math (full fp32), as the plain loop beside it in hpcreward-gpu-fidelity.
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n);
}
#else
extern "C" void matmul(int m, int n, int k, const __half *a, const __half *b, __half *c) {
  const float one = 1, zero = 0;
  cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16F, n, a, CUDA_R_16F, k, &zero, c,
               CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
#endif
