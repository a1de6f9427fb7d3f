// expect: ok   problem: cuda-dgemm-1024   stage: cuda-naive
// A non-inline __device__ helper. nvcc writes a host stub for it that calls exit; the link
// drops the stub (nothing refers to it), so the audit never sees an exit.
#include <cuda_runtime.h>
__device__ double dot(const double *a, const double *b, int ldb, int k) {
  double s = 0;
  for (int p = 0; p < k; ++p) s += a[p] * b[(size_t)p * ldb];
  return s;
}
__global__ void naive(int m, int n, int k, const double *A, const double *B, double *C) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m && j < n) C[(size_t)i * n + j] = dot(A + (size_t)i * k, B + j, n, k);
}
extern "C" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
}
