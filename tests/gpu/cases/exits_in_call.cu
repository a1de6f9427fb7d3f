// expect: runtime_error   problem: cuda-sgemm-1024   stage: cuda-naive
// A candidate that gives up as models' error handling does: a message on stderr and stdout,
// then exit(1) from inside matmul. The CUDA runtime's teardown runs under the executor's
// filter; the status must be the bug's (runtime_error), never `forbidden`.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  std::fprintf(stderr, "matmul: giving up at %dx%dx%d\n", m, n, k);
  std::printf("matmul: see stderr\n");
  std::fflush(stdout);
  std::exit(1);
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
}
