#pragma once
// The memory the measurer (hpcreward-runner) shares with the executor that runs the candidate
// (executor_main.cpp): one memfd, mapped in both. Its first page is the control block
// (executor_protocol.hpp); operand buffers are handed out after it (OperandMemory) and named
// to the executor by offset. It holds nothing else: whatever the candidate writes here is
// read by the measurer as untrusted bytes (outputs, guard zones, inputs it compares with its
// own copies), and nothing of the measurer's own state is ever placed in it.
#include <cstddef>
#include <cstdint>

#include "bench_node/cpu/guarded_buffer.hpp"

namespace hpcreward {

class SharedRegion : public OperandMemory {
 public:
  static constexpr std::size_t kControlBytes = 4096;

  // A region of kControlBytes + `operand_bytes` (throws std::system_error, std::bad_alloc).
  explicit SharedRegion(std::size_t operand_bytes);
  ~SharedRegion() override;
  SharedRegion(const SharedRegion &) = delete;
  SharedRegion &operator=(const SharedRegion &) = delete;

  int fd() const { return fd_; }  // close-on-exec; the executor is given a copy
  std::byte *base() const { return base_; }
  std::size_t bytes() const { return bytes_; }
  std::byte *allocate(std::size_t bytes) override;  // 64-byte aligned, after the control page
  std::uint64_t offset_of(const void *pointer) const;

 private:
  int fd_ = -1;
  std::byte *base_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t used_ = kControlBytes;
};

}  // namespace hpcreward
