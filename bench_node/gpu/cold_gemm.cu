#include "bench_node/gpu/cold_gemm.hpp"

#include <cuda_runtime.h>

#include <algorithm>
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

}  // namespace

double cold_gemm_gflops(Cublas &cublas, Precision precision, int size, std::size_t l2_flush_bytes, int samples) {
  const std::size_t bytes = element_bytes(precision) * static_cast<std::size_t>(size) * size;
  DeviceMemory a(bytes), b(bytes), c(bytes), flush(l2_flush_bytes);
  fill_operand(precision, a.get(), size, size, 5, 1, 0, true);
  fill_operand(precision, b.get(), size, size, 5, 2, 0, false);
  ReleaseFlag flag;
  cudaEvent_t start, stop;
  cuda_call(cudaEventCreate(&start), "cudaEventCreate");
  cuda_call(cudaEventCreate(&stop), "cudaEventCreate");
  cublas.gemm(precision, a.get(), b.get(), c.get(), size, size, size);  // loads its kernel
  cuda_call(cudaDeviceSynchronize(), "cold warm-up");
  int clock_khz = 0;
  cuda_call(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0), "clock rate");
  const long long one_second = static_cast<long long>(clock_khz) * 1000;
  std::vector<double> seconds;
  for (int i = 0; i < samples; ++i) {
    cuda_call(cudaMemsetAsync(flush.get(), i & 0xff, flush.bytes(), 0), "L2 flush");
    flag.hold();
    hold_stream<<<1, 1>>>(flag.device(), one_second);
    cuda_check_launch("hold_stream");
    cudaEventRecord(start, 0);
    cublas.gemm(precision, a.get(), b.get(), c.get(), size, size, size);
    cudaEventRecord(stop, 0);
    flag.release();
    cuda_call(cudaEventSynchronize(stop), "cold call");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    seconds.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(seconds.begin(), seconds.begin() + samples / 2, seconds.end());
  return 2.0 * size * size * static_cast<double>(size) / seconds[samples / 2] / 1e9;
}

}  // namespace hpcreward::gpu
