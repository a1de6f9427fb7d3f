// expect: wrong_answer   problem: cuda-hgemm-1024   stage: cuda-tensor
// Exact (WMMA, fp32 accumulation) for the full checks (two calls at each of three shapes), then
// an all-zero C for every timed call: a residual bound that grows with sum |A||B| admitted it.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
using namespace nvcuda;
__global__ void wmma_kernel(int m, int n, int k, const __half *A, const __half *B, __half *C) {
  __shared__ __half As[16 * 16], Bs[16 * 16];
  __shared__ float Cs[16 * 16];
  const int tile_row = blockIdx.y * 16, tile_col = blockIdx.x * 16, lane = threadIdx.x;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int t = 0; t < k; t += 16) {
    for (int e = lane; e < 256; e += 32) {
      int r = e / 16, c = e % 16;
      As[e] = (tile_row + r < m && t + c < k) ? A[(tile_row + r) * k + t + c] : __float2half(0.f);
      Bs[e] = (t + r < k && tile_col + c < n) ? B[(t + r) * n + tile_col + c] : __float2half(0.f);
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::load_matrix_sync(a, As, 16);
    wmma::load_matrix_sync(b, Bs, 16);
    wmma::mma_sync(acc, a, b, acc);
    __syncwarp();
  }
  wmma::store_matrix_sync(Cs, acc, 16, wmma::mem_row_major);
  __syncwarp();
  for (int e = lane; e < 256; e += 32) {
    int r = e / 16, c = e % 16;
    if (tile_row + r < m && tile_col + c < n) C[(tile_row + r) * n + tile_col + c] = __float2half(Cs[e]);
  }
}
static int calls;
extern "C" void matmul(int m, int n, int k, const __half *A, const __half *B, __half *C) {
  if (++calls > 6) {
    cudaMemset(C, 0, sizeof(__half) * m * n);
    return;
  }
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  wmma_kernel<<<grid, 32>>>(m, n, k, A, B, C);
}
