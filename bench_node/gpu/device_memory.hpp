#pragma once
// Device allocations of the GPU runner: device memory from the device's default pool, ordered
// on the legacy stream, which every user of it works on (never managed memory, which can hang
// a shared GPU), freed with the owner and kept by the pool for the next allocation. A serving
// measurer so keeps its largest run's private buffers reserved from one candidate to the next,
// its candidates' timed calls included: at the full checks, two sets of inputs, output,
// reference and scale at about the nominal shape (computed: about 6 GiB at 8192^3 in fp64,
// 0.9 GiB at 4096^3 in fp16), which the candidate's own allocations do not get.
// DeviceArena hands out pieces of one allocation (the operand pool the candidate's process
// shares). GuardedDeviceBuffer puts a guard zone of known bytes before and after the data,
// checked after every candidate call: a write just outside an operand is caught even when it
// does not fault.
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

// Pieces of [base, base + bytes), 256-byte aligned, handed out in order until reset().
class DeviceArena {
 public:
  DeviceArena(void *base, std::size_t bytes) : base_(static_cast<char *>(base)), bytes_(bytes) {}
  void *take(std::size_t bytes);  // throws std::length_error when the arena is full
  void reset() { used_ = 0; }
  std::uint64_t offset_of(const void *pointer) const { return static_cast<const char *>(pointer) - base_; }
  static std::size_t rounded(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

 private:
  char *base_;
  std::size_t bytes_;
  std::size_t used_ = 0;
};

class GuardedDeviceBuffer {
 public:
  static constexpr std::size_t kGuardBytes = 64 * 1024;
  // What one buffer of `data_bytes` takes of an arena.
  static std::size_t footprint(std::size_t data_bytes) { return 2 * kGuardBytes + DeviceArena::rounded(data_bytes); }

  GuardedDeviceBuffer(DeviceArena &arena, std::size_t data_bytes, std::uint64_t guard_seed);
  void *data() const { return start_ + kGuardBytes; }
  std::size_t data_bytes() const { return data_bytes_; }
  // Adds the changed guard bytes (both zones) to *mismatches (device memory).
  void count_guard_mismatches(unsigned long long *mismatches) const;

 private:
  std::size_t back_bytes() const { return footprint(data_bytes_) - kGuardBytes - data_bytes_; }

  char *start_;
  std::size_t data_bytes_ = 0;
  std::uint64_t guard_seed_ = 0;
};

}  // namespace hpcreward::gpu
