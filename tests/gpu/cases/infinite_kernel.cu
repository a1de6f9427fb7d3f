// expect: timeout   problem: cuda-sgemm-1024   stage: cuda-naive
#include <cuda_runtime.h>
__global__ void spin(volatile int *flag) { while (*flag != 12345) {} }  // C holds NaN bits: never 12345
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  spin<<<1, 1>>>(reinterpret_cast<volatile int *>(C) + 1);
}
