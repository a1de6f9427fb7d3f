// Why a published kernel reads faster through the harness than in its own runner: siboehm's
// SGEMM_CUDA kernels 6, 7 and 8 (vectorized loads; bank conflicts resolved by linearizing Bs;
// by an extra column) at 4096^3, each timed four ways, interleaved, with the SM clock read
// right after each way (clock64 against %globaltimer over a spin of 200 us):
//   runner    its own runner's loop: 50 calls back to back between two events, the mean
//             (alpha 0.5, beta 3)
//   b2b       back to back too, an event pair around each call, the median
//   gap       2 ms of idle GPU before each call (the harness's duty cycle), the median
//   cold      the same with L2 flushed before each call (the harness's cold calls)
// Not built with the project (the kernels are not in this repository):
//   git clone https://github.com/siboehm/SGEMM_CUDA
//   nvcc -O3 -std=c++17 -arch=sm_90 -I SGEMM_CUDA/src/kernels -o /tmp/probe tests/gpu/published_kernel_probe.cu
//   /tmp/probe [size] [rounds]
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "6_kernel_vectorize.cuh"
#include "7_kernel_resolve_bank_conflicts.cuh"
#include "8_kernel_bank_extra_col.cuh"

namespace {

void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

// Its runner's 128x128 configuration, for sizes of at least 128.
void launch(int kernel, int n, float alpha, float *a, float *b, float beta, float *c) {
  constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  const dim3 grid(CEIL_DIV(n, BN), CEIL_DIV(n, BM)), block((BM * BN) / (TM * TN));
  if (kernel == 6) sgemmVectorize<BM, BN, BK, TM, TN><<<grid, block>>>(n, n, n, alpha, a, b, beta, c);
  if (kernel == 7) sgemmResolveBankConflicts<BM, BN, BK, TM, TN><<<grid, block>>>(n, n, n, alpha, a, b, beta, c);
  if (kernel == 8) sgemmResolveBankExtraCol<BM, BN, BK, TM, TN><<<grid, block>>>(n, n, n, alpha, a, b, beta, c);
}

__global__ void clock_spin(unsigned long long ns, double *mhz) {
  unsigned long long t0, t1, c0 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  while (t1 - t0 < ns);
  *mhz = static_cast<double>(clock64() - c0) / static_cast<double>(t1 - t0) * 1e3;
}

double sm_mhz(double *device_mhz) {
  clock_spin<<<1, 1>>>(200000, device_mhz);
  double mhz = 0;
  check(cudaMemcpy(&mhz, device_mhz, sizeof mhz, cudaMemcpyDeviceToHost), "clock");
  return mhz;
}

// Its runner's values: (rand() % 5) + 0.01 (rand() % 5), random sign.
void runner_values(std::vector<float> &values) {
  for (float &v : values) {
    const float x = static_cast<float>(std::rand() % 5) + 0.01f * static_cast<float>(std::rand() % 5);
    v = std::rand() % 2 == 0 ? x : -x;
  }
}

float elapsed_ms(cudaEvent_t start, cudaEvent_t stop) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
  return ms;
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096, rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::size_t elements = static_cast<std::size_t>(n) * n;
  std::vector<float> host(elements);
  float *a, *b, *c, *flush;
  double *mhz;
  const std::size_t flush_bytes = std::size_t{256} << 20;  // several times any L2
  check(cudaMalloc(&a, elements * sizeof(float)), "malloc");
  check(cudaMalloc(&b, elements * sizeof(float)), "malloc");
  check(cudaMalloc(&c, elements * sizeof(float)), "malloc");
  check(cudaMalloc(&flush, flush_bytes), "malloc");
  check(cudaMalloc(&mhz, sizeof(double)), "malloc");
  runner_values(host);
  check(cudaMemcpy(a, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice), "copy");
  runner_values(host);
  check(cudaMemcpy(b, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice), "copy");
  runner_values(host);
  check(cudaMemcpy(c, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice), "copy");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  const double flops = 2.0 * n * n * static_cast<double>(n);
  auto tflops = [&](float ms) { return flops / (ms * 1e-3) / 1e12; };
  for (int kernel : {6, 7, 8}) launch(kernel, n, 1, a, b, 0, c);  // load the modules
  check(cudaDeviceSynchronize(), "warm-up");
  std::printf("%d^3, TFLOPS (SM MHz right after)\nround kernel   runner          b2b             gap             cold\n", n);
  for (int round = 0; round < rounds; ++round)
    for (int kernel : {6, 7, 8}) {
      std::printf("%5d %6d", round, kernel);
      // runner: 50 back to back, the mean
      check(cudaEventRecord(start), "record");
      for (int i = 0; i < 50; ++i) launch(kernel, n, 0.5f, a, b, 3.0f, c);
      check(cudaEventRecord(stop), "record");
      check(cudaEventSynchronize(stop), "sync");
      std::printf("   %6.2f (%4.0f)", tflops(elapsed_ms(start, stop) / 50), sm_mhz(mhz));
      for (int mode = 0; mode < 3; ++mode) {  // b2b, gap, cold
        std::vector<float> samples;
        for (int i = 0; i < 30; ++i) {
          if (mode == 2) check(cudaMemsetAsync(flush, i, flush_bytes), "flush");
          if (mode >= 1) {
            check(cudaDeviceSynchronize(), "sync");
            ::usleep(2000);
          }
          check(cudaEventRecord(start), "record");
          launch(kernel, n, 1, a, b, 0, c);
          check(cudaEventRecord(stop), "record");
          if (mode >= 1) check(cudaEventSynchronize(stop), "sync");
          else check(cudaStreamSynchronize(0), "sync");
          samples.push_back(elapsed_ms(start, stop));
        }
        std::printf("   %6.2f (%4.0f)", tflops(median(samples)), sm_mhz(mhz));
      }
      std::printf("\n");
    }
  return 0;
}
