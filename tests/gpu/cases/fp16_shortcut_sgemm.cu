// expect: wrong_answer   problem: cuda-sgemm-1024   stage: cuda-naive
// Rounds the fp32 operands to fp16 first (the precision-downcast shortcut): the harness's
// inputs span 2^-50 .. 2^50 (bench_node/measure/input_values.hpp), beyond fp16's range.
#include <cuda_fp16.h>
__global__ void half_naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p)
    sum += __half2float(__float2half(A[i * k + p])) * __half2float(__float2half(B[p * n + j]));
  C[i * n + j] = sum;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  half_naive<<<grid, block>>>(m, n, k, A, B, C);
}
