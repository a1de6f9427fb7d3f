// expect: ok   problem: cuda-hgemm-1024   stage: cuda-tensor
// __half tensor cores through WMMA (16x16x16, fp32 accumulation): four warps share a staged
// 32x16 tile of A and 16x32 tile of B; each computes a 16x16 tile of C.
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;
__global__ void hgemm(int m, int n, int k, const __half *A, const __half *B, __half *C) {
  __shared__ __align__(32) __half As[32 * 16], Bs[16 * 32];
  __shared__ __align__(32) float Cs[4][16 * 16];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, wr = warp / 2, wc = warp % 2;
  const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int t = 0; t < k; t += 16) {
    for (int e = tid; e < 32 * 16; e += 128) {
      const int ar = e / 16, ac = e % 16, br = e / 32, bc = e % 32;
      As[e] = row0 + ar < m && t + ac < k ? A[(size_t)(row0 + ar) * k + t + ac] : __float2half(0.f);
      Bs[e] = t + br < k && col0 + bc < n ? B[(size_t)(t + br) * n + col0 + bc] : __float2half(0.f);
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::load_matrix_sync(a, As + wr * 16 * 16, 16);
    wmma::load_matrix_sync(b, Bs + wc * 16, 32);
    wmma::mma_sync(acc, a, b, acc);
    __syncthreads();
  }
  wmma::store_matrix_sync(Cs[warp], acc, 16, wmma::mem_row_major);
  __syncwarp();
  for (int e = lane; e < 256; e += 32) {
    const int r = row0 + wr * 16 + e / 16, c = col0 + wc * 16 + e % 16;
    if (r < m && c < n) C[(size_t)r * n + c] = __float2half(Cs[warp][e]);
  }
}
extern "C" void matmul(int m, int n, int k, const __half *A, const __half *B, __half *C) {
  dim3 grid((n + 31) / 32, (m + 31) / 32);
  hgemm<<<grid, 128>>>(m, n, k, A, B, C);
}
