// expect: ok   problem: cuda-sgemm-1024   stage: cuda-naive
// Multiplies honestly, and from its 12th call on (past its verification, into its warm-up and
// timed calls, once the next candidate is likely set up) takes nearly all of the GPU's free
// memory and keeps it until it is killed. The next candidate goes at this one's result, while
// this one's executor is still being torn down: its measurer's canary and references must not
// fail for want of memory this candidate held (gpu_corpus.py: every row keeps its status).
#include <cuda_runtime.h>
#include <cstddef>

static void take_memory() {
  const std::size_t left = std::size_t(16) << 20;
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
  static int calls = 0;
  if (++calls >= 12) take_memory();
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
}
