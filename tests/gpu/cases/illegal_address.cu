// expect: runtime_error   problem: cuda-sgemm-1024   stage: cuda-naive
// A wild write: the context is poisoned; only this candidate's child dies with it.
#include <cuda_runtime.h>
__global__ void wild(float *C) { *(C - (1LL << 36)) = 1.0f; }
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  wild<<<1, 1>>>(C);
}
