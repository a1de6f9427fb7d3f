#include "bench_node/cpu/guarded_buffer.hpp"

#include <cstdlib>
#include <new>

#include "bench_node/measure/random_fill.hpp"

namespace hpcreward {

namespace {

// The canary of one guard zone: a pattern from the buffer's secret, so no single byte value
// (0, NaN bits) written by accident looks like a canary.
void fill_canary(std::byte *guard, std::uint64_t seed) {
  Rng rng(seed);
  for (std::size_t i = 0; i < GuardedBuffer::kGuardBytes; i += 8) {
    std::uint64_t word = rng.next();
    for (std::size_t b = 0; b < 8; ++b) guard[i + b] = static_cast<std::byte>(word >> (8 * b));
  }
}

bool canary_intact(const std::byte *guard, std::uint64_t seed) {
  Rng rng(seed);
  for (std::size_t i = 0; i < GuardedBuffer::kGuardBytes; i += 8) {
    std::uint64_t word = rng.next();
    for (std::size_t b = 0; b < 8; ++b)
      if (guard[i + b] != static_cast<std::byte>(word >> (8 * b))) return false;
  }
  return true;
}

std::size_t round_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

}  // namespace

std::byte *HeapOperandMemory::allocate(std::size_t bytes) {
  auto *block = static_cast<std::byte *>(std::aligned_alloc(GuardedBuffer::kAlignment,
                                                            round_up(bytes, GuardedBuffer::kAlignment)));
  if (block == nullptr) throw std::bad_alloc();
  blocks_.emplace_back(block);
  return block;
}

void HeapOperandMemory::Free::operator()(std::byte *block) const { std::free(block); }

std::size_t GuardedBuffer::block_bytes(std::size_t payload_bytes) {
  return round_up(kGuardBytes + payload_bytes + kGuardBytes, kAlignment);
}

GuardedBuffer::GuardedBuffer(std::size_t payload_bytes, OperandMemory &memory)
    : payload_bytes_(payload_bytes), canary_secret_(kernel_random_u64()) {
  payload_ = memory.allocate(block_bytes(payload_bytes)) + kGuardBytes;
  fill_canary(front_guard(), canary_secret_);
  fill_canary(back_guard(), canary_secret_ + 1);
}

bool GuardedBuffer::guards_intact() const {
  return canary_intact(payload_ - kGuardBytes, canary_secret_) &&
         canary_intact(payload_ + payload_bytes_, canary_secret_ + 1);
}

}  // namespace hpcreward
