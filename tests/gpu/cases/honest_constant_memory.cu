// expect: ok   problem: cuda-sgemm-1024   stage: cuda-naive
// The shape in __constant__ memory, set with cudaMemcpyToSymbol before each launch.
#include <cuda_runtime.h>
__constant__ int kShape[3];  // m, n, k
__global__ void naive(const float *A, const float *B, float *C) {
  const int m = kShape[0], n = kShape[1], k = kShape[2];
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float s = 0;
  for (int p = 0; p < k; ++p) s += A[(size_t)i * k + p] * B[(size_t)p * n + j];
  C[(size_t)i * n + j] = s;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  const int shape[3] = {m, n, k};
  cudaMemcpyToSymbol(kShape, shape, sizeof shape);
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(A, B, C);
}
