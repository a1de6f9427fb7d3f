#pragma once
// What both executors (hpcreward-executor, hpcreward-gpu-executor) do to take a candidate in:
// dlopen the object, find matmul, and install their seccomp filter before any call into it.
// The load's outcome goes back to the measurer in the control page, as untrusted text.
#include <cstddef>
#include <cstdint>

namespace hpcreward {

// How loading went, as the executor reports it in its control page.
enum class LoadStatus : std::int32_t { pending = 0, loaded = 1, load_failed = 2, no_entry_point = 3, no_sandbox = 4 };

// The filter to install (throws SandboxError when it cannot).
using InstallFilter = void (*)();

// Loads `object` and installs the filter; `matmul`'s address, or nullptr with `status` and
// `message` (NUL-terminated, at most `message_bytes`) saying why.
void *load_candidate(const char *object, InstallFilter install_filter, LoadStatus &status, char *message,
                     std::size_t message_bytes);

}  // namespace hpcreward
