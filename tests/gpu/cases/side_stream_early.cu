// expect: ok   problem: cuda-sgemm-1024   stage: cuda-naive
// Launches on a stream of its own and returns at once: the harness's device-wide synchronize
// before its end event counts the work anyway (its GFLOPS match naive_sgemm's).
#include <cuda_runtime.h>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  static cudaStream_t side = nullptr;
  if (!side) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block, 0, side>>>(m, n, k, A, B, C);
}
