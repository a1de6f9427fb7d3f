// expect: runtime_error   problem: cuda-sgemm-1024   stage: cuda-naive
// Takes and touches 64 GiB of host memory with operator new (malloc and new are allowed; pinned
// and mapped host memory are refused by the audit) before an honest product. The child's
// RLIMIT_DATA (--gpu-host-memory-mb, 16 GiB) makes new throw; the executor catches the
// bad_alloc and the measurer reports runtime_error "... out of host memory (the limit is ...)".
#include <cuda_runtime.h>
#include <cstring>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float s = 0;
  for (int p = 0; p < k; ++p) s += A[(size_t)i * k + p] * B[(size_t)p * n + j];
  C[(size_t)i * n + j] = s;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  static char *blocks[64];
  for (int i = 0; i < 64; ++i) {
    blocks[i] = new char[1ULL << 30];
    std::memset(blocks[i], i + 1, 1ULL << 30);
  }
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
}
