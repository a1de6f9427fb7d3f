// expect: ok   problem: cuda-sgemm-1024   stage: cuda-naive
// Debug output as models leave it in: printf from one device thread on the first call (the
// runtime copies it to the host's stdout at the next synchronisation) and a line on stderr
// from the host. Output is harmless: the status is the kernel's.
#include <cuda_runtime.h>
#include <cstdio>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C, int talk) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (talk && i == 0 && j == 0) printf("naive: %d x %d x %d\n", m, n, k);
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  static int calls = 0;
  if (calls == 0) std::fprintf(stderr, "matmul: first call %d x %d x %d\n", m, n, k);
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C, calls++ == 0);
}
