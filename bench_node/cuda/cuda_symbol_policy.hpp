#pragma once
// The allow-lists of the CUDA object audit (cuda_object_audit.hpp), in one place; the lists
// themselves are in cuda_symbol_policy.cpp and README.md.
//
// A CUDA candidate object may import only
//   - nvcc's registration and launch glue (__cudaRegisterFatBinary, __cudaRegisterFunction,
//     __cudaPushCallConfiguration, __cudaLaunchKernel, __cudaGetKernel, ...);
//   - the CUDA runtime calls a kernel author needs: launches (cudaLaunchKernel, ...ExC,
//     cooperative), errors, streams and events (create, record, wait, synchronize, query,
//     destroy), device memory (cudaMalloc/Free, their Async forms, Memset*, Memcpy* with the
//     symbol forms), function attributes, occupancy, device queries; also in their
//     per-thread-default-stream spellings (_ptsz, _ptds);
//   - the C++ runtime glue nvcc and g++ emit (__cxa_atexit, __cxa_guard_*, the personality
//     routine, _Unwind_Resume, operator new and delete, std::__throw_*, the stack
//     protector), libm and the memory functions of the C audit (symbol_policy.hpp).
// Everything else is refused, with a reason of its own for what the issue names: libraries
// (cuBLAS, cuBLASLt, cuDNN, ...), the driver API (cu*), the dynamic loader, processes, files,
// the network, output, clocks, and the runtime calls whose effects reach past the call or
// the harness's context: cudaDeviceReset, cudaSetDevice, device-wide limits and
// configuration, L2 persistence (cudaStreamSetAttribute, cudaCtxResetPersistingL2Cache),
// graphs and stream capture, host callbacks, managed and pinned host memory, IPC, peer
// access, the profiler, cudaEventElapsedTime (a clock), module loading (cudaLibrary*).
#include <optional>
#include <string>
#include <string_view>

namespace hpcreward::cuda_symbol_policy {

// nullopt when a CUDA candidate may import `name`; otherwise why not ("the CUDA driver API:
// ...", "not on the CUDA allow-list (...)").
std::optional<std::string> import_refusal(std::string_view name);

// The refusals with a reason of their own (libraries, the driver API, the named runtime
// calls, the C library's ways out): what a name is refused for, beyond not being listed.
// nullopt for names on the allow-list and for names that are merely not on it.
std::optional<std::string> named_refusal(std::string_view name);

// Libraries a CUDA candidate object may need (DT_NEEDED): the shared CUDA runtime
// (libcudart.so.*), libstdc++, libm, libgcc_s, libc and the dynamic loader.
bool allowed_library(std::string_view soname);
inline constexpr std::string_view kAllowedLibraries =
    "libcudart.so.*, libstdc++, libm, libgcc_s, libc, ld-linux";

// nullopt when a CUDA candidate may define and export `name`; otherwise why not: the
// harness's and the loader's names (main, _start, _init, _fini), reserved C names that are
// not C++ mangled ones (__x, _X; _Z... is fine), and the CUDA runtime's and driver's names.
std::optional<std::string> export_refusal(std::string_view name);

}  // namespace hpcreward::cuda_symbol_policy
