// expect: ok   problem: cuda-sgemm-1024   stage: cuda-naive
// Cooperative groups and warp shuffles: one warp per element of C, the lanes split k and a
// butterfly of shuffles adds their partial sums.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;
__global__ void warp_per_element(int m, int n, int k, const float *A, const float *B, float *C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const size_t element = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (element >= (size_t)m * n) return;  // a whole warp leaves together
  const int i = (int)(element / n), j = (int)(element % n);
  float s = 0;
  for (int p = warp.thread_rank(); p < k; p += 32) s += A[(size_t)i * k + p] * B[(size_t)p * n + j];
  for (int offset = 16; offset > 0; offset /= 2) s += warp.shfl_xor(s, offset);
  s = __shfl_sync(0xffffffffu, s, 0);  // every lane holds the sum; lane 0's copy is written
  if (warp.thread_rank() == 0) C[(size_t)i * n + j] = s;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  const size_t elements = (size_t)m * n, per_block = 256 / 32;
  warp_per_element<<<(unsigned)((elements + per_block - 1) / per_block), 256>>>(m, n, k, A, B, C);
}
