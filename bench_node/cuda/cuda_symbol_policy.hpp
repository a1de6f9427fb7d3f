#pragma once
// The lists of the CUDA object audit (cuda_object_audit.hpp; the rules, shared with C:
// object_audit/symbol_rules.hpp); the lists themselves are in cuda_symbol_policy.cpp and
// README.md.
//
// A CUDA candidate object may import only
//   - nvcc's registration and launch glue (__cudaRegisterFatBinary, __cudaRegisterFunction,
//     __cudaPushCallConfiguration, __cudaLaunchKernel, __cudaGetKernel, ...);
//   - the CUDA runtime calls a kernel author needs: launches (cudaLaunchKernel, ...ExC,
//     cooperative), errors, streams and events (create, record, wait, synchronize, query,
//     destroy), device memory (cudaMalloc/Free, their Async forms, Memset*, Memcpy* with the
//     symbol forms), function attributes, occupancy, device queries, the driver's entry
//     points by pointer (cudaGetDriverEntryPoint[ByVersion]: TMA's tensor maps are encoded by
//     the driver); also in their per-thread-default-stream spellings (_ptsz, _ptds);
//   - the C++ runtime glue nvcc and g++ emit (__cxa_atexit, __cxa_guard_*, the personality
//     routine, _Unwind_Resume, operator new and delete, std::__throw_*, the stack
//     protector), libm, the memory functions and the output to stdout and stderr (with
//     assert, abort and exit) of the C audit (c_symbol_policy.hpp);
//   - host-side error checks and set-up: std::cout and std::cerr with std::ostream's members,
//     std::string, the standard exception classes, std::call_once and std::mutex.
// Everything else is refused, with a reason of its own for these: libraries
// (cuBLAS, cuBLASLt, cuDNN, ...), the driver API (cu*), the dynamic loader, processes, files,
// the network, thread creation, clocks, and the runtime calls whose effects reach past the call or
// the harness's context: cudaDeviceReset, cudaSetDevice, device-wide limits and
// configuration, L2 persistence (cudaStreamSetAttribute, cudaCtxResetPersistingL2Cache),
// graphs and stream capture, host callbacks, managed and pinned host memory, IPC, peer
// access, the profiler, cudaEventElapsedTime (a clock), module loading (cudaLibrary*).
//
// It may need only the shared CUDA runtime (libcudart.so.*), libstdc++, libm, libgcc_s, libc
// and the dynamic loader. It may export no name of the harness or the loader, no reserved C
// name that is not a C++ mangled one (__x, _X; _Z... is fine), and no name of the CUDA
// runtime, driver or libraries.
#include "bench_node/object_audit/symbol_rules.hpp"

namespace hpcreward {

const ImportTable &cuda_import_table();
const ExportTable &cuda_export_table();

}  // namespace hpcreward
