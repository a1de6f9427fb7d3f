// expect: forbidden   problem: cuda-sgemm-1024   stage: cuda-naive
// cuBLAS through its header: refused before any compiler reads the file.
#include <cublas_v2.h>
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  static cublasHandle_t handle;
  if (!handle) cublasCreate(&handle);
  const float one = 1, zero = 0;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n);
}
