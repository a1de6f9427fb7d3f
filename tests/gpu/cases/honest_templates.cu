// expect: ok   problem: cuda-sgemm-1024   stage: cuda-smem
// Shared-memory tiles written once as templates (element type, tile size), with a templated
// __device__ helper; matmul instantiates them for float.
#include <cuda_runtime.h>
template <typename T>
__device__ T load_or_zero(const T *p, int row, int col, int rows, int cols, int ld) {
  return row < rows && col < cols ? p[(size_t)row * ld + col] : T(0);
}
template <typename T, int TILE>
__global__ void tiled(int m, int n, int k, const T *A, const T *B, T *C) {
  __shared__ T As[TILE][TILE + 1], Bs[TILE][TILE + 1];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  T sum = 0;
  for (int t = 0; t < k; t += TILE) {
    As[ty][tx] = load_or_zero(A, row, t + tx, m, k, k);
    Bs[ty][tx] = load_or_zero(B, t + ty, col, k, n, n);
    __syncthreads();
#pragma unroll
    for (int p = 0; p < TILE; ++p) sum += As[ty][p] * Bs[p][tx];
    __syncthreads();
  }
  if (row < m && col < n) C[(size_t)row * n + col] = sum;
}
template <typename T, int TILE>
void launch(int m, int n, int k, const T *A, const T *B, T *C) {
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  tiled<T, TILE><<<grid, block>>>(m, n, k, A, B, C);
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  launch<float, 32>(m, n, k, A, B, C);
}
