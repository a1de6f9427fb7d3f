// expect: ok   problem: cuda-dgemm-1024   stage: cuda-smem
// 64 KiB of dynamic shared memory (two 64x64 double tiles): above the 48 KiB default, so the
// kernel opts in with cudaFuncSetAttribute before its launch.
#include <cuda_runtime.h>
constexpr int TILE = 64, THREADS = 256;
constexpr size_t kSmemBytes = 2 * TILE * TILE * sizeof(double);
__global__ void __launch_bounds__(THREADS)
big_tiles(int m, int n, int k, const double *A, const double *B, double *C) {
  extern __shared__ double smem[];
  double *As = smem, *Bs = smem + TILE * TILE;  // As[p][r] (transposed), Bs[p][c]
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  double acc[4][4] = {};
  for (int t = 0; t < k; t += TILE) {
    for (int e = tid; e < TILE * TILE; e += THREADS) {
      const int r = e / TILE, c = e % TILE;
      As[c * TILE + r] = row0 + r < m && t + c < k ? A[(size_t)(row0 + r) * k + t + c] : 0.0;
      Bs[r * TILE + c] = t + r < k && col0 + c < n ? B[(size_t)(t + r) * n + col0 + c] : 0.0;
    }
    __syncthreads();
    for (int p = 0; p < TILE; ++p) {
      double a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[p * TILE + ty * 4 + i], b[i] = Bs[p * TILE + tx * 4 + i];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int r = row0 + ty * 4 + i, c = col0 + tx * 4 + j;
      if (r < m && c < n) C[(size_t)r * n + c] = acc[i][j];
    }
}
extern "C" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  cudaFuncSetAttribute(big_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kSmemBytes);
  dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  big_tiles<<<grid, THREADS, kSmemBytes>>>(m, n, k, A, B, C);
}
