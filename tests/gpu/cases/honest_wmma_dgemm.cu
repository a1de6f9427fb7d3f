// expect: ok   problem: cuda-dgemm-1024   stage: cuda-tensor
// fp64 tensor cores through WMMA (8x8x4 double fragments, sm_80+: DMMA). Four warps per block,
// each an 8x8 tile of C; operands staged through shared memory with zero padding for the edges.
#include <cuda_runtime.h>
#include <mma.h>
using namespace nvcuda;
__global__ void dmma(int m, int n, int k, const double *A, const double *B, double *C) {
  __shared__ __align__(32) double As[4][8 * 4], Bs[4][4 * 8], Cs[4][8 * 8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = blockIdx.y * 16 + (warp / 2) * 8, col0 = blockIdx.x * 16 + (warp % 2) * 8;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::fill_fragment(acc, 0.0);
  for (int t = 0; t < k; t += 4) {
    {  // 32 elements each: one per lane
      const int ar = lane / 4, ac = lane % 4, br = lane / 8, bc = lane % 8;
      As[warp][lane] = row0 + ar < m && t + ac < k ? A[(size_t)(row0 + ar) * k + t + ac] : 0.0;
      Bs[warp][lane] = t + br < k && col0 + bc < n ? B[(size_t)(t + br) * n + col0 + bc] : 0.0;
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> b;
    wmma::load_matrix_sync(a, As[warp], 4);
    wmma::load_matrix_sync(b, Bs[warp], 8);
    wmma::mma_sync(acc, a, b, acc);
    __syncwarp();
  }
  wmma::store_matrix_sync(Cs[warp], acc, 8, wmma::mem_row_major);
  __syncwarp();
  for (int e = lane; e < 64; e += 32) {
    const int r = row0 + e / 8, c = col0 + e % 8;
    if (r < m && c < n) C[(size_t)r * n + c] = Cs[warp][e];
  }
}
extern "C" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  dmma<<<grid, 128>>>(m, n, k, A, B, C);
}
