// expect: ok   problem: cuda-sgemm-1024   stage: cuda-naive
// Takes nearly all of the GPU's free memory at its first call and keeps it, then multiplies
// honestly. The next candidate's set-up (its executor's context, its operand pool), made while
// this one verifies, fails for want of memory; the rank must set it up again once this one has
// ended, not answer the next candidate for it (gpu_corpus.py: every row after it keeps its
// status, and the rank says how many set-ups it made again).
#include <cuda_runtime.h>
#include <cstddef>

static void take_memory() {
  const std::size_t left = std::size_t(16) << 20;  // its own launches still run
  for (std::size_t chunk = std::size_t(1) << 30; chunk >= (std::size_t(2) << 20); chunk /= 2) {
    std::size_t free_bytes = 0, total = 0;
    void *kept = nullptr;
    while (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess && free_bytes > left + chunk &&
           cudaMalloc(&kept, chunk) == cudaSuccess) {
    }
  }
  cudaGetLastError();
}

__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}

extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  static bool taken = false;
  if (!taken) {
    take_memory();
    taken = true;
  }
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
}
