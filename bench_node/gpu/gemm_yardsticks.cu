#include "bench_node/gpu/gemm_yardsticks.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "bench_node/gpu/cublas_reference.hpp"
#include "bench_node/gpu/cuda_call.hpp"
#include "bench_node/gpu/device_kernels.hpp"
#include "bench_node/gpu/device_memory.hpp"

namespace hpcreward::gpu {
namespace {

// Spins until the host sets *release, or about `limit_cycles` later (a host that died must
// not leave the stream held for good).
__global__ void hold_stream(const volatile int *release, long long limit_cycles) {
  const long long start = clock64();
  while (*release == 0 && clock64() - start < limit_cycles) {
  }
}

// A host flag the device reads through the mapping (pinned, mapped).
class ReleaseFlag {
 public:
  ReleaseFlag() {
    void *host = nullptr, *device = nullptr;
    cuda_call(cudaHostAlloc(&host, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
    cuda_call(cudaHostGetDevicePointer(&device, host, 0), "cudaHostGetDevicePointer");
    host_ = static_cast<volatile int *>(host);
    device_ = static_cast<const volatile int *>(device);
  }
  ~ReleaseFlag() { cudaFreeHost(const_cast<int *>(host_)); }
  void hold() { *host_ = 0; }
  void release() { *host_ = 1; }
  const volatile int *device() const { return device_; }

 private:
  volatile int *host_ = nullptr;
  const volatile int *device_ = nullptr;
};

// Operands of random values and a pair of events, for `samples` timed calls.
class Bench {
 public:
  Bench(Precision precision, int size)
      : precision_(precision), size_(size),
        a_(element_bytes(precision) * static_cast<std::size_t>(size) * size), b_(a_.bytes()), c_(a_.bytes()) {
    fill_operand(precision, a_.get(), size, size, 5, Operand::a, false);
    fill_operand(precision, b_.get(), size, size, 5, Operand::b, false);
    cuda_call(cudaEventCreate(&start_), "cudaEventCreate");
    cuda_call(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~Bench() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void call(Cublas &cublas) { cublas.gemm(precision_, a_.get(), b_.get(), c_.get(), size_, size_, size_); }
  // `before` queues what precedes each sample's start event; `after` runs once the end event
  // is queued (the cold measurement's release).
  template <typename Before, typename After>
  double median_gflops(Cublas &cublas, int samples, Before before, After after) {
    std::vector<double> seconds;
    for (int i = 0; i < samples; ++i) {
      before(i);
      cudaEventRecord(start_, 0);
      call(cublas);
      cudaEventRecord(stop_, 0);
      after();
      cuda_call(cudaEventSynchronize(stop_), "timed call");
      float ms = 0;
      cudaEventElapsedTime(&ms, start_, stop_);
      seconds.push_back(ms * 1e-3);
    }
    std::nth_element(seconds.begin(), seconds.begin() + samples / 2, seconds.end());
    return 2.0 * size_ * size_ * static_cast<double>(size_) / seconds[samples / 2] / 1e9;
  }

 private:
  Precision precision_;
  int size_;
  DeviceMemory a_, b_, c_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

double cold_gemm_gflops(Cublas &cublas, Precision precision, int size, std::size_t l2_flush_bytes, double idle_s,
                        int samples) {
  Bench bench(precision, size);
  DeviceMemory flush(l2_flush_bytes);
  ReleaseFlag flag;
  bench.call(cublas);  // loads its kernel
  cuda_call(cudaDeviceSynchronize(), "cold warm-up");
  int clock_khz = 0;
  cuda_call(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0), "clock rate");
  const long long one_second = static_cast<long long>(clock_khz) * 1000;
  return bench.median_gflops(
      cublas, samples,
      [&](int i) {
        if (idle_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(idle_s));
        cuda_call(cudaMemsetAsync(flush.get(), i & 0xff, flush.bytes(), 0), "L2 flush");
        flag.hold();
        hold_stream<<<1, 1>>>(flag.device(), one_second);
        cuda_check_launch("hold_stream");
      },
      [&] { flag.release(); });
}

double plain_gemm_gflops(Cublas &cublas, Precision precision, int size, int samples) {
  Bench bench(precision, size);
  for (int i = 0; i < 10; ++i) bench.call(cublas);
  cuda_call(cudaDeviceSynchronize(), "warm-up");
  return bench.median_gflops(cublas, samples, [](int) {}, [] {});
}

}  // namespace hpcreward::gpu
