// expect: ok   problem: cuda-sgemm-1024   stage: cuda-naive
// Two streams of its own, each computing half the rows of C; both are synchronized and
// destroyed before matmul returns. Blocking streams: they wait for the legacy default stream.
#include <cuda_runtime.h>
__global__ void rows(int row0, int rows_here, int n, int k, const float *A, const float *B, float *C) {
  const int i = row0 + blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= row0 + rows_here || j >= n) return;
  float s = 0;
  for (int p = 0; p < k; ++p) s += A[(size_t)i * k + p] * B[(size_t)p * n + j];
  C[(size_t)i * n + j] = s;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  cudaStream_t streams[2];
  for (cudaStream_t &s : streams) cudaStreamCreate(&s);
  const int half = (m + 1) / 2, counts[2] = {half, m - half};
  for (int h = 0; h < 2; ++h) {
    if (counts[h] == 0) continue;
    dim3 block(16, 16), grid((n + 15) / 16, (counts[h] + 15) / 16);
    rows<<<grid, block, 0, streams[h]>>>(h * half, counts[h], n, k, A, B, C);
  }
  for (cudaStream_t s : streams) {
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  }
}
