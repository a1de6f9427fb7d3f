#include "bench_node/cpu/shared_region.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <new>
#include <system_error>

namespace hpcreward {

SharedRegion::SharedRegion(std::size_t operand_bytes) : bytes_(kControlBytes + operand_bytes) {
  fd_ = ::memfd_create("hpcreward-operands", MFD_CLOEXEC);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "memfd_create");
  if (::ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) {
    const int error = errno;
    ::close(fd_);
    throw std::system_error(error, std::generic_category(), "ftruncate of the operand region");
  }
  void *mapped = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (mapped == MAP_FAILED) {
    ::close(fd_);
    throw std::bad_alloc();
  }
  base_ = static_cast<std::byte *>(mapped);
}

SharedRegion::~SharedRegion() {
  ::munmap(base_, bytes_);
  ::close(fd_);
}

std::byte *SharedRegion::allocate(std::size_t bytes) {
  const std::size_t start = (used_ + GuardedBuffer::kAlignment - 1) / GuardedBuffer::kAlignment * GuardedBuffer::kAlignment;
  if (start > bytes_ || bytes > bytes_ - start) throw std::bad_alloc();
  used_ = start + bytes;
  return base_ + start;
}

std::uint64_t SharedRegion::offset_of(const void *pointer) const {
  return static_cast<std::uint64_t>(static_cast<const std::byte *>(pointer) - base_);
}

}  // namespace hpcreward
