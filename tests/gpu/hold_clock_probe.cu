// A probe, not built with the project (docs/reports/gpu-harness.md, "A start that holds every
// stream"): what a clock that starts when a hold kernel on a stream of its own leaves the SMs
// would read, against the ranks' clock and nvbench's cold one. Its sections, on the GPU machine:
//   1. Do copies and memsets queued during such a hold run before it ends?
//   2. cuBLAS at 1024 and 4096: that clock, the ranks' clock (a start event on an idle GPU) and
//      an nvbench-style cold measurement, per precision and per stream of the call.
//   3. Does work queued on many streams during the hold delay the start event recorded after it?
//   4. Variants of the hold, for SGEMM 1024 (which section 2 finds slower after it).
//   5. A clock in %globaltimer only: the hold's release to a stamp kernel after the call.
//   6. Where a small grid's blocks land when the kernel waits for the hold's SMs.
//   nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/hold_clock_probe tests/gpu/hold_clock_probe.cu -lcublas
//   /tmp/hold_clock_probe [SECTIONS]   (e.g. 126; all six without an argument)
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(x)                                                          \
  do {                                                                    \
    auto err_ = (x);                                                      \
    if (err_ != 0) {                                                      \
      printf("%s:%d %s: error %d\n", __FILE__, __LINE__, #x, int(err_));  \
      exit(1);                                                            \
    }                                                                     \
  } while (0)
__device__ __forceinline__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
double q(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[size_t(p * (v.size() - 1))];
}

// Every block spins until one release time, `delay_ns` after the first block arrived.
template <int Variant>
__global__ void hold(unsigned long long *release, unsigned long long delay_ns) {
  __shared__ unsigned long long r;
  if (threadIdx.x == 0) {
    unsigned long long want = now() + delay_ns;
    unsigned long long seen = atomicCAS(release, 0ull, want);
    r = seen == 0 ? want : seen;
    while (now() < r) {
    }
  }
  __syncthreads();
}
// Spins `ns` from its start, and writes its start and end.
__global__ void work(unsigned long long ns, unsigned long long *at) {
  const unsigned long long t0 = now();
  while (now() - t0 < ns) {
  }
  if (at && threadIdx.x == 0) { at[0] = t0; at[1] = now(); }
}
__global__ void empty() {}
// Each block: a fixed chain of dependent FMAs per thread; records its SM and its start and end.
__global__ void fma_blocks(unsigned *where, unsigned long long *times, int iterations) {
  const unsigned long long t0 = now();
  float x = threadIdx.x * 1e-3f, y = 1.0001f;
  for (int i = 0; i < iterations; ++i) x = fmaf(x, y, 1e-7f);
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    where[blockIdx.x] = sm;
    times[2 * blockIdx.x] = t0;
    times[2 * blockIdx.x + 1] = now() + (x == 12345.f);
  }
}
__global__ void stamp(unsigned long long *at) {
  if (threadIdx.x == 0) *at = now();
}
// nvbench's cold hold: one thread on the held stream until the host sets the flag (1 ms at most).
__global__ void hold_for_host(const volatile int *flag) {
  const unsigned long long t0 = now();
  while (*flag == 0 && now() - t0 < 1000000) {
  }
}

struct Holder {
  unsigned long long *release;
  int blocks;
  cudaStream_t stream;
  void launch(cudaStream_t s, unsigned long long delay_ns, int variant = 0) {
    CHECK(cudaMemsetAsync(release, 0, 8, s));
    if (variant == 0) hold<0><<<blocks, 1024, 0, s>>>(release, delay_ns);
    else hold<1><<<blocks, 1024, 0, s>>>(release, delay_ns);
  }
};

float elapsed_us(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms * 1e3f;
}

// C = A B at n^3 on stream s, in fp64 (prec 0), fp32 (1) or fp16 with fp32 accumulation (2).
void cublas_gemm(cublasHandle_t handle, int prec, int n, void *a, void *b, void *c, cudaStream_t s) {
  CHECK(cublasSetStream(handle, s));
  const double d1 = 1, d0 = 0;
  const float f1 = 1, f0 = 0;
  if (prec == 0)
    CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &d1, (double *)b, n, (double *)a, n, &d0, (double *)c, n));
  else if (prec == 1)
    CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &f1, (float *)b, n, (float *)a, n, &f0, (float *)c, n));
  else
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &f1, b, CUDA_R_16F, n, a, CUDA_R_16F, n, &f0, c,
                       CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

int main(int argc, char **argv) {
  auto want = [&](char section) { return argc < 2 || strchr(argv[1], section) != nullptr; };
  int sms = 0, per_sm = 0, l2 = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hold<0>, 1024, 0));
  unsigned long long *scratch;
  CHECK(cudaMalloc(&scratch, 1 << 20));
  cudaStream_t hold_stream, side, side2;
  CHECK(cudaStreamCreateWithFlags(&hold_stream, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&side2, cudaStreamNonBlocking));
  Holder holder{scratch, per_sm * sms, hold_stream};
  cudaEvent_t start, end, held;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&end));
  CHECK(cudaEventCreate(&held));
  printf("hold: %d SMs x %d blocks of 1024 threads; L2 %d bytes\n", sms, per_sm, l2);

  CHECK(cudaFuncSetAttribute(hold<1>, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  // 1. Copies and memsets queued during a 50 us hold: their end event against the hold's.
  if (want('1')) {
    const size_t sizes[] = {4u << 20, 64u << 20};
    char *src, *dst;
    CHECK(cudaMalloc(&src, 64u << 20));
    CHECK(cudaMalloc(&dst, 64u << 20));
    const char *kinds[] = {"memcpy D2D", "memset", "memcpy2D (pitch change)"};
    for (size_t bytes : sizes)
      for (int kind = 0; kind < 3; ++kind)
        for (int on_side = 0; on_side < 2; ++on_side) {
          cudaStream_t s = on_side ? side : cudaStream_t(0);
          std::vector<double> before_hold_end;
          int done_first = 0;
          for (int rep = 0; rep < 100; ++rep) {
            CHECK(cudaDeviceSynchronize());
            holder.launch(hold_stream, 50000);
            CHECK(cudaEventRecord(held, hold_stream));
            if (kind == 0) CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
            if (kind == 1) CHECK(cudaMemsetAsync(dst, rep & 0xff, bytes, s));
            if (kind == 2) {
              const size_t width = 4096, rows = bytes / (width + 64);
              CHECK(cudaMemcpy2DAsync(dst, width + 64, src, width, width, rows, cudaMemcpyDeviceToDevice, s));
            }
            CHECK(cudaEventRecord(end, s));
            CHECK(cudaDeviceSynchronize());
            const double us = elapsed_us(held, end);  // < 0: done before the hold ended
            before_hold_end.push_back(us);
            done_first += us < 0;
          }
          printf("1. %-24s %5zu MiB on the %-12s stream: its end - the hold's end = %.1f / %.1f / %.1f us; done before the hold ended %d of 100\n",
                 kinds[kind], bytes >> 20, on_side ? "non-blocking" : "legacy", q(before_hold_end, 0),
                 q(before_hold_end, .5), q(before_hold_end, 1), done_first);
        }
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
  }

  // 2. cuBLAS at 1024 (and 4096): three clocks, interleaved per sample, L2 flushed before each.
  if (want('2')) {
    cublasHandle_t handle;
    CHECK(cublasCreate(&handle));
    char *flush;
    CHECK(cudaMalloc(&flush, 2 * size_t(l2)));
    int *flag_host, *flag_device;
    CHECK(cudaHostAlloc(&flag_host, sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&flag_device), flag_host, 0));
    for (int n : {1024, 4096})
      for (int prec = 0; prec < 3; ++prec) {
        const size_t el = prec == 0 ? 8 : prec == 1 ? 4 : 2, bytes = el * n * n;
        void *a, *b, *c;
        CHECK(cudaMalloc(&a, bytes));
        CHECK(cudaMalloc(&b, bytes));
        CHECK(cudaMalloc(&c, bytes));
        CHECK(cudaMemset(a, 0x3c, bytes));  // 1.0-ish halves, small doubles and floats: no NaN
        CHECK(cudaMemset(b, 0x3c, bytes));
        auto gemm = [&](cudaStream_t s) { cublas_gemm(handle, prec, n, a, b, c, s); };
        for (int i = 0; i < 5; ++i) gemm(0), gemm(side);
        CHECK(cudaDeviceSynchronize());
        // ways: 0 cold (legacy held, start event there); 1 idle start (the ranks' clock); 2 own hold,
        // call on legacy; 3 own hold, call on a non-blocking stream. Row 4 is the host's time of
        // one call (us), which the hold must outlast.
        const char *ways[] = {"cold (legacy held)", "idle start (ranks today)", "own hold, legacy", "own hold, non-blocking",
                              "host time of the call"};
        std::vector<double> us[5];
        for (int i = 0; i < 50; ++i)
          for (int way = 0; way < 4; ++way) {
            CHECK(cudaMemsetAsync(flush, i & 0xff, 2 * size_t(l2), 0));
            CHECK(cudaDeviceSynchronize());
            cudaStream_t s = way == 3 ? side : cudaStream_t(0);
            if (way == 0) {
              *(volatile int *)flag_host = 0;
              hold_for_host<<<1, 1>>>(flag_device);  // released by the host below
            }
            if (way >= 2) holder.launch(hold_stream, 30000);
            CHECK(cudaEventRecord(start, way == 0 || way == 1 ? cudaStream_t(0) : hold_stream));
            const auto t0 = std::chrono::steady_clock::now();
            gemm(s);
            const auto t1 = std::chrono::steady_clock::now();
            CHECK(cudaEventRecord(end, s));
            if (way == 0) *(volatile int *)flag_host = 1;
            CHECK(cudaDeviceSynchronize());
            us[way].push_back(elapsed_us(start, end));
            if (way == 2) us[4].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
          }
        const char *names[] = {"D", "S", "H"};
        const double cold = q(us[0], .5);
        for (int way = 0; way < 5; ++way)
          printf("2. %sGEMM %4d %-26s median %8.2f us (min %8.2f, max %8.2f)%s%.3f\n", names[prec], n, ways[way],
                 q(us[way], .5), q(us[way], 0), q(us[way], 1), way < 4 ? "  cold/this " : "", way < 4 ? cold / q(us[way], .5) : 0.0);
        CHECK(cudaFree(a));
        CHECK(cudaFree(b));
        CHECK(cudaFree(c));
      }
    // The dispatch a cold event pair counts: a 5 us kernel, cold against own hold, legacy stream.
    std::vector<double> cold5, own5;
    for (int i = 0; i < 200; ++i)
      for (int way = 0; way < 2; ++way) {
        CHECK(cudaDeviceSynchronize());
        if (way == 0) holder.launch(0, 20000);
        else holder.launch(hold_stream, 20000);
        CHECK(cudaEventRecord(start, way == 0 ? cudaStream_t(0) : hold_stream));
        work<<<1, 32>>>(5000, nullptr);
        CHECK(cudaEventRecord(end, 0));
        CHECK(cudaDeviceSynchronize());
        (way == 0 ? cold5 : own5).push_back(elapsed_us(start, end) - 5.0);
      }
    printf("2. a 5 us kernel: cold - 5 us = %.2f us, own hold - 5 us = %.2f us (medians); min %.2f / %.2f\n", q(cold5, .5),
           q(own5, .5), q(cold5, 0), q(own5, 0));
  }

  // 3. Many launches on many streams queued during the hold: does the start event come late?
  if (want('3')) {
    cudaStream_t many[16];
    for (auto &s : many) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long *at = scratch + 1024;
    for (int flood : {0, 64, 512}) {
      std::vector<double> event_less_truth, event_span;
      for (int rep = 0; rep < 100; ++rep) {
        CHECK(cudaDeviceSynchronize());
        holder.launch(hold_stream, 30000 + flood * 100ull);
        CHECK(cudaEventRecord(start, hold_stream));
        for (int i = 0; i < flood; ++i) empty<<<1, 32, 0, many[i % 16]>>>();
        work<<<1, 32>>>(5000, at);
        CHECK(cudaEventRecord(end, 0));
        CHECK(cudaDeviceSynchronize());
        unsigned long long host[2], release;
        CHECK(cudaMemcpy(host, at, 16, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&release, scratch, 8, cudaMemcpyDeviceToHost));
        const double truth = (double(host[1]) - double(release)) * 1e-3;  // hold's release to the work's end
        event_span.push_back(elapsed_us(start, end));
        event_less_truth.push_back(event_span.back() - truth);
      }
      printf("3. %3d empty kernels on 16 streams queued in the hold: events %.2f us; events - (release to work end) = %.2f / %.2f / %.2f us\n",
             flood, q(event_span, .5), q(event_less_truth, 0), q(event_less_truth, .5), q(event_less_truth, 1));
    }
  }

  // 4 and 5 share cuBLAS at 1024, operands of every precision and an L2 flush.
  cublasHandle_t handle4;
  CHECK(cublasCreate(&handle4));
  const int n4 = 1024;
  void *a4, *b4, *c4;
  char *flush4;
  CHECK(cudaMalloc(&a4, 8u * n4 * n4));
  CHECK(cudaMalloc(&b4, 8u * n4 * n4));
  CHECK(cudaMalloc(&c4, 8u * n4 * n4));
  CHECK(cudaMemset(a4, 0x3c, 8u * n4 * n4));
  CHECK(cudaMemset(b4, 0x3c, 8u * n4 * n4));
  CHECK(cudaMalloc(&flush4, 2 * size_t(l2)));
  auto gemm4 = [&](int prec, cudaStream_t s) { cublas_gemm(handle4, prec, n4, a4, b4, c4, s); };
  for (int prec = 0; prec < 3; ++prec)
    for (int i = 0; i < 5; ++i) gemm4(prec, 0);
  CHECK(cudaDeviceSynchronize());
  const char *names4[] = {"D", "S", "H"};
  auto flush_l2 = [&](int i) {
    CHECK(cudaMemsetAsync(flush4, i & 0xff, 2 * size_t(l2), 0));
    CHECK(cudaDeviceSynchronize());
  };

  // 4. Why SGEMM 1024 read slower after an own-stream hold: variants of the hold.
  if (want('4')) {
    const char *ways[] = {"own hold 30 us", "own hold 30 us, max-shared carveout", "own hold 100 us",
                          "idle start right after a hold", "idle start, no hold", "own hold, 1 block per SM"};
    for (int prec = 0; prec < 3; ++prec) {
      std::vector<double> us[6];
      for (int i = 0; i < 40; ++i)
        for (int way = 0; way < 6; ++way) {
          flush_l2(i);
          cudaStream_t start_on = hold_stream;
          if (way == 0) holder.launch(hold_stream, 30000);
          if (way == 1) holder.launch(hold_stream, 30000, 1);
          if (way == 2) holder.launch(hold_stream, 100000);
          if (way == 3) { holder.launch(hold_stream, 30000); CHECK(cudaDeviceSynchronize()); start_on = 0; }
          if (way == 4) start_on = 0;
          if (way == 5) {
            CHECK(cudaMemsetAsync(scratch, 0, 8, hold_stream));
            hold<0><<<sms, 1024, 0, hold_stream>>>(scratch, 30000);
          }
          CHECK(cudaEventRecord(start, start_on));
          gemm4(prec, 0);
          CHECK(cudaEventRecord(end, 0));
          CHECK(cudaDeviceSynchronize());
          us[way].push_back(elapsed_us(start, end));
        }
      for (int way = 0; way < 6; ++way)
        printf("4. %sGEMM 1024 %-38s median %7.2f us (min %7.2f)\n", names4[prec], ways[way], q(us[way], .5), q(us[way], 0));
    }
  }

  // 5. A clock in %globaltimer only: the start is the hold's release, the end a stamp kernel
  // queued on the legacy stream after the call; a second stamp after a device-wide synchronize
  // bounds work on other streams, less the gap such a stamp has on an idle GPU.
  if (want('5')) {
    unsigned long long *stamps = scratch + 2048;  // [0] end stamp, [1] after-sync stamp, [2..3] work
    auto read = [&](unsigned long long *host, int count) { CHECK(cudaMemcpy(host, stamps, 8 * count, cudaMemcpyDeviceToHost)); };
    unsigned long long release = 0;
    // The idle gap: a stamp launched after a synchronize, against the end of the work before it.
    std::vector<double> idle_gap;
    for (int i = 0; i < 100; ++i) {
      work<<<1, 32>>>(5000, stamps + 2);
      CHECK(cudaDeviceSynchronize());
      stamp<<<1, 32>>>(stamps + 1);
      CHECK(cudaDeviceSynchronize());
      unsigned long long h[4];
      read(h, 4);
      idle_gap.push_back((double(h[1]) - double(h[3])) * 1e-3);
    }
    printf("5. idle gap (stamp after a synchronize - the work's end): %.2f / %.2f / %.2f / %.2f us (min / median / 90%% / max)\n",
           q(idle_gap, 0), q(idle_gap, .5), q(idle_gap, .9), q(idle_gap, 1));
    for (int what = 0; what < 5; ++what) {
      // 0: 5 us on legacy; 1: 5 us on a non-blocking stream; 2..4: cuBLAS D, S, H on legacy
      std::vector<double> stamp_span, event_span, after_sync, flooded;
      for (int i = 0; i < 50; ++i)
        for (int flood = 0; flood < 2; ++flood) {
          flush_l2(i);
          holder.launch(hold_stream, 30000);
          CHECK(cudaEventRecord(start, hold_stream));
          if (flood)
            for (int f = 0; f < 512; ++f) empty<<<1, 32, 0, f % 2 ? side : side2>>>();
          cudaStream_t s = what == 1 ? side : cudaStream_t(0);
          if (what < 2) work<<<1, 32, 0, s>>>(5000, stamps + 2);
          else gemm4(what - 2, 0);
          CHECK(cudaEventRecord(end, s));
          stamp<<<1, 32>>>(stamps);
          CHECK(cudaDeviceSynchronize());
          stamp<<<1, 32>>>(stamps + 1);
          CHECK(cudaDeviceSynchronize());
          unsigned long long h[2];
          read(h, 2);
          CHECK(cudaMemcpy(&release, scratch, 8, cudaMemcpyDeviceToHost));
          const double span = (double(h[0]) - double(release)) * 1e-3;
          if (flood) { flooded.push_back(span); continue; }
          stamp_span.push_back(span);
          after_sync.push_back((double(h[1]) - double(release)) * 1e-3 - q(idle_gap, .5));
          event_span.push_back(elapsed_us(start, end));
        }
      const char *what_names[] = {"5 us kernel, legacy", "5 us kernel, non-blocking", "DGEMM 1024", "SGEMM 1024", "HGEMM 1024"};
      printf("5. %-26s release->end stamp %7.2f us (min %7.2f), 512 empty kernels queued too %7.2f us; events %7.2f us; after-sync stamp less median gap %7.2f us\n",
             what_names[what], q(stamp_span, .5), q(stamp_span, 0), q(flooded, .5), q(event_span, .5), q(after_sync, .5));
    }
  }

  // 6. Where a small grid's blocks land when the kernel waits for the hold's SMs: G blocks of 256
  // threads, each a fixed chain of FMAs, record their SM and times.
  if (want('6')) {
    unsigned *where;
    unsigned long long *times;
    CHECK(cudaMalloc(&where, 4 * 1024));
    CHECK(cudaMalloc(&times, 16 * 1024));
    for (int grid : {64, 132, 264})
      for (int way = 0; way < 3; ++way) {
        std::vector<double> spans, sms_used, most_on_one;
        for (int rep = 0; rep < 30; ++rep) {
          CHECK(cudaDeviceSynchronize());
          if (way == 1) holder.launch(hold_stream, 30000);
          if (way == 2) holder.launch(0, 30000);  // the same hold on the legacy stream: order, not occupancy
          fma_blocks<<<grid, 256>>>(where, times, 20000);
          CHECK(cudaDeviceSynchronize());
          std::vector<unsigned> w(grid);
          std::vector<unsigned long long> t(2 * grid);
          CHECK(cudaMemcpy(w.data(), where, 4 * grid, cudaMemcpyDeviceToHost));
          CHECK(cudaMemcpy(t.data(), times, 16 * grid, cudaMemcpyDeviceToHost));
          std::vector<int> per_sm(1024, 0);
          unsigned long long lo = ~0ull, hi = 0;
          for (int b = 0; b < grid; ++b) {
            ++per_sm[w[b]];
            lo = std::min(lo, t[2 * b]);
            hi = std::max(hi, t[2 * b + 1]);
          }
          sms_used.push_back(std::count_if(per_sm.begin(), per_sm.end(), [](int c) { return c > 0; }));
          most_on_one.push_back(*std::max_element(per_sm.begin(), per_sm.end()));
          spans.push_back((hi - lo) * 1e-3);
        }
        const char *ways[] = {"idle GPU", "own-stream hold (occupancy)", "legacy-stream hold (order)"};
        printf("6. %3d blocks after %-28s: SMs used %3.0f (median), most blocks on one SM %2.0f, span %6.2f us (median; min %6.2f)\n",
               grid, ways[way], q(sms_used, .5), q(most_on_one, .5), q(spans, .5), q(spans, 0));
      }
  }
  return 0;
}
