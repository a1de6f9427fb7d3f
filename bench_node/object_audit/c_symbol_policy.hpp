#pragma once
// The lists of the C object audit (the rules: symbol_rules.hpp; c_symbol_policy.cpp holds
// the lists).
//
// A candidate object may import only
//   - libm: the C99/C11 <math.h> functions with their f and l variants, sincos and exp10,
//     and their libmvec vector variants (_ZGV..._exp) that `#pragma omp simd` calls;
//   - memory: memcpy, memmove, memset, memcmp, malloc, calloc, realloc, free,
//     aligned_alloc, posix_memalign, and the _FORTIFY_SOURCE checked copies
//     __memcpy_chk, __memmove_chk, __memset_chk;
//   - <stdlib.h>'s abs, labs, llabs (arithmetic; gcc folds them inline unless -fno-builtin);
//   - output to the candidate's own stdout and stderr and formatting into its memory (printf,
//     fprintf, puts, putchar, fputs, fwrite, fflush, perror, snprintf, ..., their _chk
//     forms, stdout, stderr), a failed assert (__assert_fail), abort and exit: the executor's
//     filter lets writes reach fds 1 and 2 only and refuses every open, and the rank keeps
//     the first 4 KiB of that output;
//   - the OpenMP runtime: libgomp's GOMP_* entry points (what gcc -fopenmp emits for
//     parallel, for, reduction, critical, atomic, single, sections, task, taskloop, ordered,
//     barrier, teams) and the omp_* API, except the clocks (omp_get_wtime, omp_get_wtick),
//     output (omp_display_*, GOMP_error, GOMP_warning: `#pragma omp error`), device
//     offloading (GOMP_target*, GOMP_offload_*, omp_target_*) and the plugin interface
//     (GOMP_PLUGIN_*);
//   - the toolchain's own references: the weak ones crtbeginS.o adds (__cxa_finalize,
//     _ITM_registerTMCloneTable, _ITM_deregisterTMCloneTable, __gmon_start__),
//     __stack_chk_fail (-fstack-protector) and __tls_get_addr (_Thread_local, omp
//     threadprivate).
// Everything else (a BLAS, dlopen/dlsym, clocks, threads, processes, I/O, signals, exit,
// syscall, __libc_* ...) is refused. The audit also accepts whatever an empty candidate
// compiled with the same compiler and flags imports (toolchain_baseline.hpp).
//
// It may need only libc, libm, libmvec, libgomp, libgcc_s and the dynamic loader (ld-linux*).
// It may export no name of the harness, no reserved identifier (C++ names included; gcc's
// vector variants of a function it exports itself are its own) and no symbol of the
// executor's libraries (library_symbols.hpp).
#include <memory>
#include <span>
#include <string_view>

#include "bench_node/object_audit/library_symbols.hpp"
#include "bench_node/object_audit/symbol_rules.hpp"

namespace hpcreward {

const ImportTable &c_import_table();
ExportTable c_export_table(std::shared_ptr<const LibrarySymbols> libraries);

// Parts of the import list above, which CUDA's (bench_node/cuda/) shares: libm with its
// libmvec variants, the memory functions, and output to stdout and stderr with assert, abort
// and exit.
bool math_import(std::string_view name);
std::span<const std::string_view> memory_imports();
std::span<const std::string_view> own_output_imports();

}  // namespace hpcreward
