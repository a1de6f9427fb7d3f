// expect: ok   problem: cuda-dgemm-1024   stage: cuda-naive
// Stream-ordered allocation: a non-blocking stream of its own, a split-K workspace from
// cudaMallocAsync, two partial products and their sum on that stream, cudaFreeAsync, and an
// event to wait on. The GPU executor's filter kills any new thread after the load: this is the
// idiom most likely to want driver work the context did not start with, so it must score ok.
#include <cuda_runtime.h>
__global__ void partial(int m, int n, int k, int k0, int k1, const double *A, const double *B, double *out) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  double s = 0;
  for (int p = k0; p < k1; ++p) s += A[(size_t)i * k + p] * B[(size_t)p * n + j];
  out[(size_t)i * n + j] = s;
}
__global__ void sum_halves(size_t count, const double *work, double *C) {
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < count; e += (size_t)gridDim.x * blockDim.x)
    C[e] = work[e] + work[count + e];
}
extern "C" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return;
  const size_t count = (size_t)m * n;
  double *work = nullptr;
  if (cudaMallocAsync(&work, 2 * count * sizeof(double), stream) == cudaSuccess) {
    const int half = k / 2;
    dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
    partial<<<grid, block, 0, stream>>>(m, n, k, 0, half, A, B, work);
    partial<<<grid, block, 0, stream>>>(m, n, k, half, k, A, B, work + count);
    sum_halves<<<256, 256, 0, stream>>>(count, work, C);
    cudaFreeAsync(work, stream);
  }
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  cudaEventRecord(done, stream);
  cudaEventSynchronize(done);
  cudaEventDestroy(done);
  cudaStreamDestroy(stream);
}
