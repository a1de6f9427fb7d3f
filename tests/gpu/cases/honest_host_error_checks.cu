// expect: ok   problem: cuda-sgemm-1024   stage: cuda-naive
// A kernel file as models and published repositories write them: the driver API's header and
// <cstdio>, <iostream>, <stdexcept>, <vector>, <string>, <mutex> and <cassert> included, a
// CUDA_CHECK macro that prints to stderr and throws, a one-time set-up under std::call_once, a
// host assert, and a self-test main beside matmul (the linker drops it). None of it reaches
// outside the process.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#define CUDA_CHECK(call)                                                                          \
  do {                                                                                            \
    cudaError_t status_ = (call);                                                                 \
    if (status_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(status_), __FILE__, __LINE__); \
      std::cerr << "failed: " << cudaGetErrorString(status_) << std::endl;                        \
      throw std::runtime_error(std::string("CUDA: ") + cudaGetErrorString(status_));              \
    }                                                                                             \
  } while (0)

__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}

static std::once_flag configured;
static std::mutex launching;

extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  assert(m > 0 && n > 0 && k > 0);
  std::call_once(configured, [] {
    CUDA_CHECK(cudaFuncSetAttribute(naive, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  });
  std::lock_guard<std::mutex> hold(launching);
  const std::vector<int> dims{m, n, k};
  if (dims.size() != 3) std::abort();
  const dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
  CUDA_CHECK(cudaGetLastError());
}

int main() {
  const int n = 64;
  std::vector<float> a(n * n, 1.0f), b(n * n, 2.0f), c(n * n);
  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
  matmul(n, n, n, da, db, dc);
  cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("c[0] = %f (expect %f)\n", c[0], 2.0f * n);
  return c[0] == 2.0f * n ? EXIT_SUCCESS : EXIT_FAILURE;
}
