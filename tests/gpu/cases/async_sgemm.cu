// expect: ok   problem: cuda-sgemm-1024   stage: cuda-async
// Shared-memory tiles loaded with asynchronous copies (cp.async: LDGSTS), double-buffered.
#include <cuda_pipeline.h>
#define TILE 32
__global__ void tiled_async(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[2][TILE][TILE], Bs[2][TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  auto load = [&](int stage, int t) {
    if (row < m && t + tx < k) __pipeline_memcpy_async(&As[stage][ty][tx], &A[row * k + t + tx], sizeof(float));
    else As[stage][ty][tx] = 0.f;
    if (col < n && t + ty < k) __pipeline_memcpy_async(&Bs[stage][ty][tx], &B[(t + ty) * n + col], sizeof(float));
    else Bs[stage][ty][tx] = 0.f;
    __pipeline_commit();
  };
  float sum = 0;
  load(0, 0);
  for (int t = 0, stage = 0; t < k; t += TILE, stage ^= 1) {
    if (t + TILE < k) { load(stage ^ 1, t + TILE); __pipeline_wait_prior(1); }
    else __pipeline_wait_prior(0);
    __syncthreads();
    for (int p = 0; p < TILE; ++p) sum += As[stage][ty][p] * Bs[stage][p][tx];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = sum;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  tiled_async<<<grid, block>>>(m, n, k, A, B, C);
}
