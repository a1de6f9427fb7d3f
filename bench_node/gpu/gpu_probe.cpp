#include "bench_node/gpu/gpu_probe.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench_node/gpu/cublas_reference.hpp"
#include "bench_node/gpu/cuda_call.hpp"
#include "bench_node/gpu/device_kernels.hpp"
#include "bench_node/gpu/device_memory.hpp"

namespace hpcreward::gpu {

namespace {

std::string version_text(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string uuid_text(const cudaUUID_t &uuid) {
  std::string text = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    text += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) text += '-';
  }
  return text;
}

double median_gflops(Precision precision, int size, int reps, Cublas &cublas, bool tf32) {
  const std::size_t elements = static_cast<std::size_t>(size) * size;
  DeviceMemory a(element_bytes(precision) * elements), b(element_bytes(precision) * elements),
      c(element_bytes(precision) * elements);
  fill_operand(precision, a.get(), size, size, 1, Operand::a, false);
  fill_operand(precision, b.get(), size, size, 1, Operand::b, false);
  cudaEvent_t start, stop;
  cuda_call(cudaEventCreate(&start), "cudaEventCreate");
  cuda_call(cudaEventCreate(&stop), "cudaEventCreate");
  // At least 200 ms of warm-up: clocks ramp up, cuBLAS picks and loads its kernels.
  cuda_call(cudaDeviceSynchronize(), "warm-up");
  for (float spent_ms = 0; spent_ms < 200;) {
    cudaEventRecord(start, 0);
    cublas.gemm(precision, a.get(), b.get(), c.get(), size, size, size, tf32);
    cudaEventRecord(stop, 0);
    cuda_call(cudaEventSynchronize(stop), "warm-up");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    spent_ms += std::max(ms, 0.01f);
  }
  std::vector<double> seconds;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(start, 0);
    cublas.gemm(precision, a.get(), b.get(), c.get(), size, size, size, tf32);
    cuda_call(cudaDeviceSynchronize(), "ceiling");
    cudaEventRecord(stop, 0);
    cuda_call(cudaEventSynchronize(stop), "ceiling");
    float ms = 0;
    cuda_call(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    seconds.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return 2.0 * size * size * static_cast<double>(size) / seconds[seconds.size() / 2] / 1e9;
}

}  // namespace

GpuInfo describe_device() {
  cudaDeviceProp properties{};
  cuda_call(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  GpuInfo info;
  info.name = properties.name;
  info.uuid = uuid_text(properties.uuid);
  info.compute_capability = std::to_string(properties.major) + "." + std::to_string(properties.minor);
  // Hopper's wgmma and setmaxnreg need the arch-specific target (sm_90a).
  info.arch = "sm_" + std::to_string(properties.major) + std::to_string(properties.minor) +
              (properties.major == 9 && properties.minor == 0 ? "a" : "");
  info.memory_bytes = properties.totalGlobalMem;
  info.l2_bytes = static_cast<std::uint64_t>(properties.l2CacheSize);
  info.multiprocessors = properties.multiProcessorCount;
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  info.driver_version = version_text(driver);
  info.runtime_version = version_text(runtime);
  return info;
}

GpuCeilings measure_ceilings(int size, int reps) {
  Cublas cublas;
  GpuCeilings ceilings;
  ceilings.f64 = median_gflops(Precision::f64, size, reps, cublas, false);
  ceilings.f32_fp32 = median_gflops(Precision::f32, size, reps, cublas, false);
  ceilings.f32 = std::max(ceilings.f32_fp32, median_gflops(Precision::f32, size, reps, cublas, true));
  ceilings.f16 = median_gflops(Precision::f16, size, reps, cublas, false);
  ceilings.bf16 = median_gflops(Precision::bf16, size, reps, cublas, false);
  return ceilings;
}

std::string run_canary() {
  constexpr int kCount = 1 << 20;
  std::vector<float> a(kCount), b(kCount), out(kCount);
  for (int i = 0; i < kCount; ++i) {
    a[i] = static_cast<float>(i % 97) * 0.5f;
    b[i] = static_cast<float>(i % 89) - 44.0f;
  }
  DeviceMemory da(sizeof(float) * kCount), db(sizeof(float) * kCount), dout(sizeof(float) * kCount);
  cuda_call(cudaMemcpy(da.get(), a.data(), da.bytes(), cudaMemcpyHostToDevice), "canary upload");
  cuda_call(cudaMemcpy(db.get(), b.data(), db.bytes(), cudaMemcpyHostToDevice), "canary upload");
  canary(da.as<float>(), db.as<float>(), dout.as<float>(), kCount);
  cuda_call(cudaDeviceSynchronize(), "canary kernel");
  cuda_call(cudaMemcpy(out.data(), dout.get(), dout.bytes(), cudaMemcpyDeviceToHost), "canary download");
  for (int i = 0; i < kCount; ++i)
    if (out[i] != a[i] * b[i] + static_cast<float>(i))
      return "canary kernel computed a wrong value at index " + std::to_string(i);
  return "";
}

}  // namespace hpcreward::gpu
