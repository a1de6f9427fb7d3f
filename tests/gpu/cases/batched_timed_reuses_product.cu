// expect: wrong_answer   problem: cuda-sgemm-batched-64x1024   stage: cuda-naive
// Exact through the full checks, then every timed call skips the last product and copies the
// one before it there: finite, plausible, 1/64 of the work saved.
#include <cuda_runtime.h>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  const size_t q = blockIdx.z;
  A += q * m * k; B += q * k * n; C += q * m * n;
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[(size_t)i * k + p] * B[(size_t)p * n + j];
  C[(size_t)i * n + j] = sum;
}
static int calls;
extern "C" void matmul(int batch, int m, int n, int k, const float *A, const float *B, float *C) {
  const int computed = ++calls > 4 && batch > 1 ? batch - 1 : batch;
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16, computed);
  naive<<<grid, block>>>(m, n, k, A, B, C);
  if (computed < batch)
    cudaMemcpy(C + (size_t)computed * m * n, C + (size_t)(computed - 1) * m * n, sizeof(float) * m * n,
               cudaMemcpyDeviceToDevice);
}
