#pragma once
// A heap buffer with guard zones of canary bytes before and after it. A candidate that
// writes outside the matrix it was given leaves a changed canary behind.
#include <cstddef>
#include <cstdint>
#include <span>

namespace hpcreward {

class GuardedBuffer {
 public:
  static constexpr std::size_t kGuardBytes = 4096;
  static constexpr std::size_t kAlignment = 64;  // of the payload

  // Throws std::bad_alloc when the memory is not there.
  GuardedBuffer(std::size_t payload_bytes, std::uint64_t canary_seed);
  ~GuardedBuffer();
  GuardedBuffer(GuardedBuffer &&other) noexcept;
  GuardedBuffer &operator=(GuardedBuffer &&other) noexcept;
  GuardedBuffer(const GuardedBuffer &) = delete;
  GuardedBuffer &operator=(const GuardedBuffer &) = delete;

  std::byte *data() { return payload_; }
  const std::byte *data() const { return payload_; }
  std::size_t size() const { return payload_bytes_; }
  template <typename T>
  std::span<T> as() {
    return {reinterpret_cast<T *>(payload_), payload_bytes_ / sizeof(T)};
  }

  // True while both guard zones still hold their canaries.
  bool guards_intact() const;
  // The guard zones themselves, for tests that play a candidate writing out of bounds.
  std::byte *front_guard() { return payload_ - kGuardBytes; }
  std::byte *back_guard() { return payload_ + payload_bytes_; }

 private:
  void release();
  std::byte *block_ = nullptr;
  std::byte *payload_ = nullptr;
  std::size_t payload_bytes_ = 0;
  std::uint64_t canary_seed_ = 0;
};

}  // namespace hpcreward
