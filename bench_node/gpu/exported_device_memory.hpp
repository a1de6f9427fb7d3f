#pragma once
// Device memory two processes share, passed as a descriptor (CUDA's virtual memory management
// with POSIX file descriptor handles): the measurer creates it and hands the descriptor to the
// executor, which maps it into its own context. The descriptor is the only way in: nothing
// else of the measurer's context is exported, so the candidate's context can reach this pool
// and no other byte of the measurer's device memory (CUDA's legacy IPC handles, by contrast,
// are plain values a process could try to guess).
#include <cstddef>
#include <cstdint>

namespace hpcreward::gpu {

class ExportedDeviceMemory {
 public:
  // At least `bytes` on the current device, mapped read-write here (throws CudaError).
  explicit ExportedDeviceMemory(std::size_t bytes);
  ~ExportedDeviceMemory();
  ExportedDeviceMemory(const ExportedDeviceMemory &) = delete;
  ExportedDeviceMemory &operator=(const ExportedDeviceMemory &) = delete;

  void *get() const { return pointer_; }
  std::size_t bytes() const { return bytes_; }
  int fd() const { return fd_; }  // close-on-exec; the executor is given a copy

 private:
  std::uint64_t pointer_value_ = 0;
  void *pointer_ = nullptr;
  std::size_t bytes_ = 0;
  unsigned long long handle_ = 0;
  int fd_ = -1;
};

// The executor's side: maps the memory behind `fd` (`bytes`, as the measurer sized it) into
// the current context, read-write. Returns its address, or nullptr with `error` set.
void *import_device_memory(int fd, std::size_t bytes, const char *&error);

}  // namespace hpcreward::gpu
