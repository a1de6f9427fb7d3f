#include "bench_node/gpu/device_memory.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "bench_node/gpu/cuda_call.hpp"
#include "bench_node/gpu/device_kernels.hpp"

namespace hpcreward::gpu {

namespace {

// The current device's default pool keeps what is freed: a serving measurer allocates the same
// buffers for every candidate, and each cudaFree of them waited for the device.
void keep_freed_memory() {
  static const bool kept = [] {
    int device = 0;
    cudaMemPool_t pool = nullptr;
    cuda_call(cudaGetDevice(&device), "cudaGetDevice");
    cuda_call(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
    std::uint64_t keep_all = UINT64_MAX;
    cuda_call(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all),
              "cudaMemPoolSetAttribute (release threshold)");
    return true;
  }();
  (void)kept;
}

}  // namespace

DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  keep_freed_memory();
  cuda_call(cudaMallocAsync(&pointer_, bytes == 0 ? 1 : bytes, 0), "cudaMallocAsync");
}

DeviceMemory::~DeviceMemory() {
  if (pointer_ != nullptr) cudaFreeAsync(pointer_, 0);  // after a sticky error this fails: nothing to do
}

DeviceMemory::DeviceMemory(DeviceMemory &&other) noexcept
    : pointer_(std::exchange(other.pointer_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceMemory &DeviceMemory::operator=(DeviceMemory &&other) noexcept {
  if (this != &other) {
    if (pointer_ != nullptr) cudaFreeAsync(pointer_, 0);
    pointer_ = std::exchange(other.pointer_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void *DeviceArena::take(std::size_t bytes) {
  const std::size_t size = rounded(bytes);
  if (size > bytes_ - used_)
    throw std::length_error("the operand pool is full (" + std::to_string(bytes_) + " bytes)");
  void *piece = base_ + used_;
  used_ += size;
  return piece;
}

GuardedDeviceBuffer::GuardedDeviceBuffer(DeviceArena &arena, std::size_t data_bytes, std::uint64_t guard_seed)
    : start_(static_cast<char *>(arena.take(footprint(data_bytes)))), data_bytes_(data_bytes), guard_seed_(guard_seed) {
  // The front zone, then everything from the data's end to the piece's end.
  fill_guard(start_, kGuardBytes, guard_seed_);
  fill_guard(static_cast<char *>(data()) + data_bytes_, back_bytes(), guard_seed_ ^ 0xa5a5a5a5ULL);
}

void GuardedDeviceBuffer::count_guard_mismatches(unsigned long long *mismatches) const {
  gpu::count_guard_mismatches(start_, kGuardBytes, guard_seed_, mismatches);
  gpu::count_guard_mismatches(static_cast<char *>(data()) + data_bytes_, back_bytes(), guard_seed_ ^ 0xa5a5a5a5ULL,
                              mismatches);
}

}  // namespace hpcreward::gpu
