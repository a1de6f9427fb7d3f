// expect: wrong_answer   problem: cuda-hgemm-1024   stage: cuda-tensor
// WMMA with an fp16 accumulator (twice the tensor-core rate of fp32 accumulation on many GPUs):
// the problem asks for fp32 accumulation, and at k = 1024 the fp16 sum's error is about six times
// what fp32 accumulation and the rounding of C to __half make, twice the bounds fp32 accumulation
// is held to (docs/reward-integrity.md, "Accumulation precision"). In a problem of fp16
// accumulation (cuda-l2's l2-MxNxK-nn-f16acc) the same kernel is honest.
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;
__global__ void wmma_kernel(int m, int n, int k, const __half *A, const __half *B, __half *C) {
  __shared__ __half As[16 * 16], Bs[16 * 16], Cs[16 * 16];
  const int tile_row = blockIdx.y * 16, tile_col = blockIdx.x * 16, lane = threadIdx.x;
  wmma::fragment<wmma::accumulator, 16, 16, 16, __half> acc;
  wmma::fill_fragment(acc, __float2half(0.f));
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
    if (tile_row + r < m && tile_col + c < n) C[(tile_row + r) * n + tile_col + c] = Cs[e];
  }
}
extern "C" void matmul(int m, int n, int k, const __half *A, const __half *B, __half *C) {
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  wmma_kernel<<<grid, 32>>>(m, n, k, A, B, C);
}
