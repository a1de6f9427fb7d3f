#pragma once
// A buffer with guard zones of canary bytes before and after it. A candidate that writes
// outside the matrix it was given leaves a changed canary behind. Each buffer's canary comes
// from a secret of its own (kernel_random_u64): reading one guard zone tells nothing about
// another, nor about any other value the harness keeps from the candidate.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace hpcreward {

// Where operand buffers live: the heap of this process (tests, benchmarks) or memory shared
// with the process that runs the candidate (shared_region.hpp). Blocks live as long as the
// source; they are 64-byte aligned.
class OperandMemory {
 public:
  virtual ~OperandMemory() = default;
  // Throws std::bad_alloc when the memory is not there.
  virtual std::byte *allocate(std::size_t bytes) = 0;
};

class HeapOperandMemory : public OperandMemory {
 public:
  std::byte *allocate(std::size_t bytes) override;

 private:
  struct Free {
    void operator()(std::byte *block) const;
  };
  std::vector<std::unique_ptr<std::byte, Free>> blocks_;
};

class GuardedBuffer {
 public:
  static constexpr std::size_t kGuardBytes = 4096;
  static constexpr std::size_t kAlignment = 64;  // of the payload

  // The bytes `memory` must hand out for a payload of `payload_bytes`.
  static std::size_t block_bytes(std::size_t payload_bytes);

  // Throws std::bad_alloc when the memory is not there.
  GuardedBuffer(std::size_t payload_bytes, OperandMemory &memory);

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
  std::byte *payload_ = nullptr;
  std::size_t payload_bytes_ = 0;
  std::uint64_t canary_secret_ = 0;
};

}  // namespace hpcreward
