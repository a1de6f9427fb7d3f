// expect: ok   problem: cuda-sgemm-1024   stage: cuda-smem
// 32x32 shared-memory tiles.
#include <cuda_runtime.h>
#define TILE 32
__global__ void tiled(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE + 1];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < k; t += TILE) {
    As[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? A[row * k + t + threadIdx.x] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < k) ? B[(t + threadIdx.y) * n + col] : 0.f;
    __syncthreads();
    for (int p = 0; p < TILE; ++p) sum += As[threadIdx.y][p] * Bs[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = sum;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  tiled<<<grid, block>>>(m, n, k, A, B, C);
}
