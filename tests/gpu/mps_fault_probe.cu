// Whether one CUDA process's fault reaches another on the same GPU: `probe victim` runs 600
// short kernels (about 6 s) and says whether all completed; `probe faulter`, started beside it,
// writes to an illegal address after 1 s. Not part of the build:
//   nvcc -O2 -o probe mps_fault_probe.cu
//   (./probe victim & sleep 0.2; ./probe faulter; wait)          # time-sliced contexts
//   nvidia-cuda-mps-control -d, the same, echo quit | nvidia-cuda-mps-control   # under MPS
// Results: docs/reports/gpu-harness.md, "A clock the candidate's process cannot move".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
__global__ void spin(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) for (int r = 0; r < 1000; ++r) x[i] = x[i] * 0.999f + 1.0f; }
__global__ void bad(float *p) { p[threadIdx.x * 1000003] = 1.0f; }
int main(int argc, char **argv) {
  float *x; cudaError_t e = cudaMalloc(&x, 1 << 24);
  if (e) { printf("%s malloc: %s\n", argv[1], cudaGetErrorString(e)); return 1; }
  if (!strcmp(argv[1], "faulter")) {
    sleep(1);
    bad<<<1, 256>>>((float *)0x10);
    e = cudaDeviceSynchronize();
    printf("faulter: %s\n", cudaGetErrorString(e));
    return 0;
  }
  for (int i = 0; i < 600; ++i) {
    spin<<<4096, 256>>>(x, 1 << 20);
    e = cudaDeviceSynchronize();
    if (e) { printf("victim: failed at iteration %d: %s\n", i, cudaGetErrorString(e)); return 1; }
    usleep(10000);
  }
  printf("victim: all 600 iterations ok\n");
}
