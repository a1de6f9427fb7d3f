// expect: forbidden   problem: cuda-sgemm-1024   stage: cuda-naive
// A host-side system() call: the object audit refuses the import.
#include <cuda_runtime.h>
extern "C" int system(const char *command);
__global__ void zero(float *C, int count) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < count) C[i] = 0; }
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  system("touch /tmp/hpcreward-gpu-pwned");
  zero<<<(m * n + 255) / 256, 256>>>(C, m * n);
}
