// expect: forbidden   problem: cuda-sgemm-1024   stage: cuda-naive
// cudaDeviceReset would tear down the harness's context (and its buffers) mid-run.
#include <cuda_runtime.h>
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  cudaDeviceReset();
}
