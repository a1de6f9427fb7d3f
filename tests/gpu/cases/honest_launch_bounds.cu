// expect: ok   problem: cuda-sgemm-1024   stage: cuda-smem
// __launch_bounds__ on a register-blocked kernel: 64x64 tiles of C, 256 threads, 4x4 each.
#include <cuda_runtime.h>
constexpr int BM = 64, BN = 64, BK = 16, THREADS = 256;
__global__ void __launch_bounds__(THREADS, 2)
blocked(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[BK][BM], Bs[BK][BN];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[4][4] = {};
  for (int t = 0; t < k; t += BK) {
    for (int e = tid; e < BM * BK; e += THREADS) {
      const int r = e / BK, c = e % BK, gr = row0 + r, gc = t + c;
      As[c][r] = gr < m && gc < k ? A[(size_t)gr * k + gc] : 0.f;
    }
    for (int e = tid; e < BK * BN; e += THREADS) {
      const int r = e / BN, c = e % BN, gr = t + r, gc = col0 + c;
      Bs[r][c] = gr < k && gc < n ? B[(size_t)gr * n + gc] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[p][ty * 4 + i], b[i] = Bs[p][tx * 4 + i];
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
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
  blocked<<<grid, THREADS>>>(m, n, k, A, B, C);
}
