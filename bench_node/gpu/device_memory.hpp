#pragma once
// Device allocations of the GPU runner: plain cudaMalloc (never managed memory, which can
// hang a shared GPU), freed with the owner. GuardedDeviceBuffer puts a guard zone of known
// bytes before and after the data, checked after every candidate call: a write just outside
// an operand is caught even when it does not fault.
#include <cstddef>
#include <cstdint>

namespace hpcreward::gpu {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory &&other) noexcept;
  DeviceMemory &operator=(DeviceMemory &&other) noexcept;
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  void *get() const { return pointer_; }
  template <typename T> T *as() const { return static_cast<T *>(pointer_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void *pointer_ = nullptr;
  std::size_t bytes_ = 0;
};

class GuardedDeviceBuffer {
 public:
  static constexpr std::size_t kGuardBytes = 64 * 1024;

  GuardedDeviceBuffer(std::size_t data_bytes, std::uint64_t guard_seed);
  void *data() const { return static_cast<char *>(memory_.get()) + kGuardBytes; }
  std::size_t data_bytes() const { return data_bytes_; }
  // Adds the changed guard bytes (both zones) to *mismatches (device memory).
  void count_guard_mismatches(unsigned long long *mismatches) const;

 private:
  DeviceMemory memory_;
  std::size_t data_bytes_ = 0;
  std::uint64_t guard_seed_ = 0;
};

}  // namespace hpcreward::gpu
