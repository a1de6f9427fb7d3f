// expect: forbidden   problem: cuda-hgemm-1024   stage: cuda-cute
// A CuTe candidate with code of its own that runs when the object is loaded (a global's
// dynamic initializer), before the executor's filter. g++ 12's <iostream>, which CuTe
// includes, gives every object such an initializer too; the CuTe stage compiles against a
// <iostream> without it, so this one is still a constructor beyond the toolchain's.
#include <cute/tensor.hpp>
#include <cuda_fp16.h>

int value_at_load() {
  volatile int seen = 1;
  return seen;
}
static int loaded = value_at_load();

__global__ void naive(int m, int n, int k, const __half *A, const __half *B, __half *C, int one) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += __half2float(A[(size_t)i * k + p]) * __half2float(B[(size_t)p * n + j]);
  C[(size_t)i * n + j] = __float2half(sum * one);
}

extern "C" void matmul(int m, int n, int k, const __half *A, const __half *B, __half *C) {
  const dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C, loaded);
}
