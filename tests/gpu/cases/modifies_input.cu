// expect: wrong_answer   problem: cuda-sgemm-1024   stage: cuda-naive
#include <cuda_runtime.h>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}
__global__ void scribble(float *A) { A[0] = 0.0f; }
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
  cudaDeviceSynchronize();
  scribble<<<1, 1>>>(const_cast<float *>(A));
}
