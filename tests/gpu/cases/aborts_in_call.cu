// expect: runtime_error   problem: cuda-sgemm-1024   stage: cuda-naive
// A failed host assertion: abort() from inside matmul (SIGABRT to itself). A bug, so
// runtime_error, never `forbidden`.
#include <cuda_runtime.h>
#undef NDEBUG
#include <cassert>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  assert(m < 0 && "a check that is wrong");
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
}
