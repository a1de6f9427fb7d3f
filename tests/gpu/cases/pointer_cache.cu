// expect: wrong_answer   problem: cuda-sgemm-1024   stage: cuda-naive
// Computes once per (A, B, C) pointer triple and replays the old C afterwards.
#include <cuda_runtime.h>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}
struct Entry { const float *a, *b; float *c; float *saved; };
static Entry cache[64];
static int used = 0;
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  for (int e = 0; e < used; ++e)
    if (cache[e].a == A && cache[e].b == B && cache[e].c == C) {
      cudaMemcpy(C, cache[e].saved, sizeof(float) * m * n, cudaMemcpyDeviceToDevice);
      return;
    }
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
  if (used < 64) {
    float *saved = nullptr;
    cudaMalloc(&saved, sizeof(float) * m * n);
    cudaMemcpy(saved, C, sizeof(float) * m * n, cudaMemcpyDeviceToDevice);
    cache[used++] = {A, B, C, saved};
  }
}
