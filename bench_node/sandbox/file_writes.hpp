#pragma once
// No file writable to a candidate but the ones it must write, by construction (Landlock). The
// CUDA driver opens its device files read-write, so the GPU executor's seccomp filter cannot
// refuse opening a file for writing, and RLIMIT_FSIZE 0 stops
// write(2) but not a store through a shared, writable mmap. Without this a CUDA candidate could
// rewrite another candidate's compiled object, a compile-cache entry, the reward log or an MPI
// shared-memory segment on the node.
#include <string>
#include <vector>

namespace hpcreward {

// From now on this process (and its threads) may open for writing, create, remove, rename,
// link or truncate nothing outside `writable` (each an existing file or a folder, covering
// what is beneath it); reading stays as it was, and files already open are untouched. For
// good: it cannot be lifted. Throws SandboxError (seccomp_filter.hpp) with what to fix when
// the kernel has no Landlock or a path cannot be opened.
void restrict_file_writes(const std::vector<std::string> &writable);

// The kernel's Landlock ABI version; 0 when it has none.
int landlock_abi();

// The GPU's device files a CUDA process writes: every nvidia* entry of `devices`.
std::vector<std::string> nvidia_device_files(const std::string &devices = "/dev");

}  // namespace hpcreward
