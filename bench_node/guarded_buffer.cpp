#include "bench_node/guarded_buffer.hpp"

#include <cstdlib>
#include <new>
#include <utility>

#include "bench_node/random_fill.hpp"

namespace hpcreward {

namespace {

// The canary at guard byte `index`: a seeded pattern, so no single byte value (0, NaN bits)
// written by accident looks like a canary.
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

}  // namespace

GuardedBuffer::GuardedBuffer(std::size_t payload_bytes, std::uint64_t canary_seed)
    : payload_bytes_(payload_bytes), canary_seed_(canary_seed) {
  std::size_t total = kGuardBytes + payload_bytes + kGuardBytes;
  total = (total + kAlignment - 1) / kAlignment * kAlignment;
  block_ = static_cast<std::byte *>(std::aligned_alloc(kAlignment, total));
  if (block_ == nullptr) throw std::bad_alloc();
  payload_ = block_ + kGuardBytes;
  fill_canary(front_guard(), canary_seed_);
  fill_canary(back_guard(), canary_seed_ + 1);
}

GuardedBuffer::~GuardedBuffer() { release(); }

GuardedBuffer::GuardedBuffer(GuardedBuffer &&other) noexcept
    : block_(std::exchange(other.block_, nullptr)),
      payload_(std::exchange(other.payload_, nullptr)),
      payload_bytes_(std::exchange(other.payload_bytes_, 0)),
      canary_seed_(other.canary_seed_) {}

GuardedBuffer &GuardedBuffer::operator=(GuardedBuffer &&other) noexcept {
  if (this != &other) {
    release();
    block_ = std::exchange(other.block_, nullptr);
    payload_ = std::exchange(other.payload_, nullptr);
    payload_bytes_ = std::exchange(other.payload_bytes_, 0);
    canary_seed_ = other.canary_seed_;
  }
  return *this;
}

void GuardedBuffer::release() {
  std::free(block_);
  block_ = nullptr;
  payload_ = nullptr;
}

bool GuardedBuffer::guards_intact() const {
  if (block_ == nullptr) return true;
  return canary_intact(payload_ - kGuardBytes, canary_seed_) &&
         canary_intact(payload_ + payload_bytes_, canary_seed_ + 1);
}

}  // namespace hpcreward
