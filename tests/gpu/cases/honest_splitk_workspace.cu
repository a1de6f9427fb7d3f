// expect: ok   problem: cuda-dgemm-1024   stage: cuda-naive
// Split-K: each slice of k sums into its own plane of a cudaMalloc'ed workspace, a second
// kernel adds the planes into C; the workspace is freed before matmul returns.
#include <cuda_runtime.h>
__global__ void partial(int m, int n, int k, int chunk, const double *A, const double *B, double *work) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  const int begin = blockIdx.z * chunk, end = min(k, begin + chunk);
  double s = 0;
  for (int p = begin; p < end; ++p) s += A[(size_t)i * k + p] * B[(size_t)p * n + j];
  work[(size_t)blockIdx.z * m * n + (size_t)i * n + j] = s;
}
__global__ void reduce_planes(size_t elements, int planes, const double *work, double *C) {
  const size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= elements) return;
  double s = 0;
  for (int z = 0; z < planes; ++z) s += work[(size_t)z * elements + e];
  C[e] = s;
}
extern "C" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const int splits = k >= 64 ? 4 : 1, chunk = (k + splits - 1) / splits;
  const size_t elements = (size_t)m * n;
  double *work = nullptr;
  if (cudaMalloc(&work, splits * elements * sizeof(double)) != cudaSuccess) return;
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16, splits);
  partial<<<grid, block>>>(m, n, k, chunk, A, B, work);
  reduce_planes<<<(unsigned)((elements + 255) / 256), 256>>>(elements, splits, work, C);
  cudaFree(work);  // waits for the kernels above
}
