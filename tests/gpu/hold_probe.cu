// A probe, not built with the project (docs/reports/gpu-harness.md, "A probe for the lever left
// at 1024"): %globaltimer's resolution on this GPU, whether a hold kernel that fills every SM's
// thread slots keeps a non-blocking stream's kernel from starting before its blocks leave, and
// by how much that kernel starts before a legacy-stream kernel queued behind the hold and a
// start event. On the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/hold_probe tests/gpu/hold_probe.cu && /tmp/hold_probe
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(err_)); return 1; } } while (0)
__device__ __forceinline__ unsigned long long now() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }

// The p-quantile of `v` (0: least, 1: most).
double q(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[size_t(p * (v.size() - 1))];
}

__global__ void resolution(unsigned long long *out, int n) {
  unsigned long long last = now(), least = ~0ull, first = last; int changes = 0;
  for (int i = 0; i < n; ++i) { unsigned long long t = now(); if (t != last) { least = min(least, t - last); ++changes; last = t; } }
  out[0] = least; out[1] = changes; out[2] = last - first;
}
__global__ void hold(unsigned long long *release, unsigned long long *exits, unsigned long long delay_ns) {
  __shared__ unsigned long long r;
  if (threadIdx.x == 0) {
    unsigned long long want = now() + delay_ns;
    unsigned long long seen = atomicCAS(release, 0ull, want);
    r = seen == 0 ? want : seen;
    while (now() < r) {}
    exits[blockIdx.x] = now();
  }
  __syncthreads();
}
__global__ void stamp(unsigned long long *at) { if (threadIdx.x == 0) *at = now(); }
// A kernel of known length: spins for `ns` of the device clock from its start.
__global__ void work(unsigned long long ns) { const unsigned long long t0 = now(); while (now() - t0 < ns) {} }

int main() {
  unsigned long long *d; CHECK(cudaMalloc(&d, 1 << 20));
  resolution<<<1, 1>>>(d, 1 << 20); CHECK(cudaDeviceSynchronize());
  unsigned long long r[3]; CHECK(cudaMemcpy(r, d, sizeof r, cudaMemcpyDeviceToHost));
  printf("globaltimer: least step %llu ns, %llu changes over %llu ns (mean step %.1f ns)\n", r[0], r[1], r[2], double(r[2]) / r[1]);
  int sms = 0; CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int per_sm = 0; CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hold, 1024, 0));
  const int blocks = per_sm * sms;
  printf("hold: %d SMs x %d blocks of 1024 threads\n", sms, per_sm);
  cudaStream_t side; CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaEvent_t start; CHECK(cudaEventCreate(&start));
  unsigned long long *release = d, *exits = d + 8, *side_at = d + 4096, *legacy_at = d + 4097;
  for (unsigned long long delay : {5000ull, 20000ull}) {
    std::vector<double> side_before_legacy, side_after_first_exit, exit_spread, side_after_last_exit;
    int side_before_first_exit = 0;
    for (int rep = 0; rep < 300; ++rep) {
      CHECK(cudaMemset(release, 0, 8)); CHECK(cudaDeviceSynchronize());
      hold<<<blocks, 1024>>>(release, exits, delay);
      CHECK(cudaEventRecord(start, 0));
      stamp<<<1, 32, 0, side>>>(side_at);     // a candidate's kernel on a non-blocking stream
      stamp<<<1, 32>>>(legacy_at);            // an honest one, queued behind the hold and the start event
      CHECK(cudaDeviceSynchronize());
      std::vector<unsigned long long> e(blocks); unsigned long long s, l;
      CHECK(cudaMemcpy(e.data(), exits, 8 * blocks, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&s, side_at, 8, cudaMemcpyDeviceToHost)); CHECK(cudaMemcpy(&l, legacy_at, 8, cudaMemcpyDeviceToHost));
      auto [lo, hi] = std::minmax_element(e.begin(), e.end());
      side_before_legacy.push_back(double(l) - double(s));
      side_after_first_exit.push_back(double(s) - double(*lo));
      side_after_last_exit.push_back(double(s) - double(*hi));
      exit_spread.push_back(double(*hi - *lo));
      side_before_first_exit += s < *lo;
    }
    printf("delay %llu ns (300 reps), ns as min / median / max:\n", delay);
    printf("  legacy kernel start - side kernel start: %.0f / %.0f / %.0f\n", q(side_before_legacy, 0), q(side_before_legacy, .5), q(side_before_legacy, 1));
    printf("  side start - the hold's first exit:      %.0f / %.0f / %.0f (side before the first exit %d times)\n", q(side_after_first_exit, 0), q(side_after_first_exit, .5), q(side_after_first_exit, 1), side_before_first_exit);
    printf("  side start - the hold's last exit:       %.0f / %.0f / %.0f\n", q(side_after_last_exit, 0), q(side_after_last_exit, .5), q(side_after_last_exit, 1));
    printf("  the hold's exit spread:                  %.0f / %.0f / %.0f\n", q(exit_spread, 0), q(exit_spread, .5), q(exit_spread, 1));
  }
  // How much an event span adds to a kernel of known length (5 us), per way of starting and per
  // stream: "cold" holds the legacy stream and records the start event there (nvbench); "own"
  // holds a stream of its own, filling every SM, and records the start event on it; "idle"
  // records the start event on an idle GPU, then launches (the ranks' clock today).
  cudaStream_t hold_stream, blocking;
  CHECK(cudaStreamCreateWithFlags(&hold_stream, cudaStreamNonBlocking));
  CHECK(cudaStreamCreate(&blocking));
  cudaEvent_t end; CHECK(cudaEventCreate(&end));
  const unsigned long long known = 5000;
  const char *ways[] = {"cold", "own", "idle"};
  const char *stream_names[] = {"legacy", "blocking", "non-blocking"};
  cudaStream_t streams[] = {0, blocking, side};
  for (int way = 0; way < 3; ++way)
    for (int s = 0; s < 3; ++s) {
      std::vector<double> excess;
      for (int rep = 0; rep < 200; ++rep) {
        CHECK(cudaMemset(release, 0, 8)); CHECK(cudaDeviceSynchronize());
        cudaStream_t held = way == 0 ? cudaStream_t(0) : hold_stream;
        if (way != 2) hold<<<blocks, 1024, 0, held>>>(release, exits, 20000);
        CHECK(cudaEventRecord(start, way == 2 ? cudaStream_t(0) : held));
        work<<<1, 32, 0, streams[s]>>>(known);
        CHECK(cudaEventRecord(end, streams[s]));
        CHECK(cudaDeviceSynchronize());
        float ms = 0; CHECK(cudaEventElapsedTime(&ms, start, end));
        excess.push_back(ms * 1e6 - double(known));
      }
      printf("%-5s start, work on the %-12s stream: events - 5 us = %.0f / %.0f / %.0f ns (min / median / max)\n",
             ways[way], stream_names[s], q(excess, 0), q(excess, .5), q(excess, 1));
    }
  return 0;
}
