// expect: forbidden   problem: cuda-sgemm-1024   stage: cuda-naive
// cuBLAS through a hand-written prototype (no header to refuse): the link or the audit refuses it.
#include <cuda_runtime.h>
extern "C" int cublasCreate_v2(void **handle);
extern "C" int cublasSgemm_v2(void *handle, int ta, int tb, int m, int n, int k, const float *alpha,
                              const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc);
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  static void *handle;
  if (!handle) cublasCreate_v2(&handle);
  const float one = 1, zero = 0;
  cublasSgemm_v2(handle, 0, 0, n, m, k, &one, B, n, A, k, &zero, C, n);
}
