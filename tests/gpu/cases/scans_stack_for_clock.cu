// expect: ok   problem: cuda-sgemm-1024   stage: cuda-naive
// Computes C honestly, then walks the 2 KiB of stack above its own frame (where a harness
// that called it in-process keeps its clock readings, its calibrated gaps and its tolerance)
// and overwrites every double that looks like a call's time, a gap or a tolerance (1e-7 .. 10)
// with 1e-9. The measurer's clock lives in another process: its GFLOPS must match
// naive_sgemm's (gpu_corpus.py TWINS).
#include <cuda_runtime.h>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}
__attribute__((noinline)) static void shrink_what_looks_like_time(volatile double *from, int count) {
  for (int i = 0; i < count; ++i) {
    const double value = from[i];
    if (value > 1e-7 && value < 10) from[i] = 1e-9;
  }
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
  cudaDeviceSynchronize();
  volatile double here = 0;
  shrink_what_looks_like_time(&here + 1, 2048 / sizeof(double));
}
