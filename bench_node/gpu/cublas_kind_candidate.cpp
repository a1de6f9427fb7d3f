// cuBLAS as a candidate object for a problem kind (docs/problems.md, the ABI): what
// hpcreward-gpu-fidelity --problems hands hpcreward-gpu-executor, so the harness measures the
// library exactly as it measures a candidate of that kind, to be compared with the rank's
// cuBLAS yardstick for the problem (library_yardsticks.hpp makes the same call). Built once per
// precision and layout (bench_node/gpu/CMakeLists.txt):
//   HPCREWARD_KIND_PRECISION  0 double, 1 float (TF32 tensor cores, as the yardstick), 2 __half, 3 __nv_bfloat16
//   HPCREWARD_KIND_TRANSPOSE_A, HPCREWARD_KIND_TRANSPOSE_B, HPCREWARD_KIND_BATCHED  0 or 1
// A trusted benchmark object may create its handle in a constructor; a candidate may not.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

cublasHandle_t handle = nullptr;

__attribute__((constructor)) void create_handle() {
  cublasCreate(&handle);
#if HPCREWARD_KIND_PRECISION == 1
  cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH);
#endif
}

#if HPCREWARD_KIND_PRECISION == 0
using T = double;
#elif HPCREWARD_KIND_PRECISION == 1
using T = float;
#elif HPCREWARD_KIND_PRECISION == 2
using T = __half;
#else
using T = __nv_bfloat16;
#endif

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T (cublas_reference.cpp).
void product(int batch, int m, int n, int k, const T *a, const T *b, T *c) {
  const cublasOperation_t op_b = HPCREWARD_KIND_TRANSPOSE_B ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = HPCREWARD_KIND_TRANSPOSE_A ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = HPCREWARD_KIND_TRANSPOSE_B ? k : n, lda = HPCREWARD_KIND_TRANSPOSE_A ? m : k;
  const long long sa = static_cast<long long>(m) * k, sb = static_cast<long long>(k) * n,
                  sc = static_cast<long long>(m) * n;
#if HPCREWARD_KIND_PRECISION == 0
  const double one = 1, zero = 0;
  if (HPCREWARD_KIND_BATCHED)
    cublasDgemmStridedBatched(handle, op_b, op_a, n, m, k, &one, b, ldb, sb, a, lda, sa, &zero, c, n, sc, batch);
  else
    cublasDgemm(handle, op_b, op_a, n, m, k, &one, b, ldb, a, lda, &zero, c, n);
#elif HPCREWARD_KIND_PRECISION == 1
  const float one = 1, zero = 0;
  if (HPCREWARD_KIND_BATCHED)
    cublasSgemmStridedBatched(handle, op_b, op_a, n, m, k, &one, b, ldb, sb, a, lda, sa, &zero, c, n, sc, batch);
  else
    cublasSgemm(handle, op_b, op_a, n, m, k, &one, b, ldb, a, lda, &zero, c, n);
#else
  const cudaDataType type = HPCREWARD_KIND_PRECISION == 2 ? CUDA_R_16F : CUDA_R_16BF;
  const float one = 1, zero = 0;
  if (HPCREWARD_KIND_BATCHED)
    cublasGemmStridedBatchedEx(handle, op_b, op_a, n, m, k, &one, b, type, ldb, sb, a, type, lda, sa, &zero, c, type, n,
                               sc, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  else
    cublasGemmEx(handle, op_b, op_a, n, m, k, &one, b, type, ldb, a, type, lda, &zero, c, type, n, CUBLAS_COMPUTE_32F,
                 CUBLAS_GEMM_DEFAULT);
#endif
}

}  // namespace

#if HPCREWARD_KIND_BATCHED
extern "C" void matmul(int batch, int m, int n, int k, const T *a, const T *b, T *c) { product(batch, m, n, k, a, b, c); }
#else
extern "C" void matmul(int m, int n, int k, const T *a, const T *b, T *c) { product(1, m, n, k, a, b, c); }
#endif
