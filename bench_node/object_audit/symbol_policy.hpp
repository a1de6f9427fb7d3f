#pragma once
// The allow-lists of the object audit, in one place (symbol_policy.cpp holds the lists).
//
// A candidate object may import only
//   - libm: the C99/C11 <math.h> functions with their f and l variants, sincos and exp10,
//     and their libmvec vector variants (_ZGV..._exp) that `#pragma omp simd` calls;
//   - memory: memcpy, memmove, memset, memcmp, malloc, calloc, realloc, free,
//     aligned_alloc, posix_memalign, and the _FORTIFY_SOURCE checked copies
//     __memcpy_chk, __memmove_chk, __memset_chk;
//   - <stdlib.h>'s abs, labs, llabs (arithmetic; gcc folds them inline unless -fno-builtin);
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
#include <optional>
#include <string>
#include <string_view>

namespace hpcreward::symbol_policy {

// nullopt when a candidate may import `name`; otherwise why not, for the reason
// ("only libm, memory and OpenMP runtime functions are allowed", "a clock: ...").
std::optional<std::string> import_refusal(std::string_view name);

// Parts of the allow-list above, for other audits (bench_node/cuda/) to share: libm with its
// libmvec variants, and the memory functions.
bool math_import(std::string_view name);
bool memory_import(std::string_view name);

// Libraries a candidate object may need (DT_NEEDED): libc, libm, libmvec, libgomp,
// libgcc_s and the dynamic loader (ld-linux*). Nothing else can be linked.
bool allowed_library(std::string_view soname);
inline constexpr std::string_view kAllowedLibraries =
    "libc, libm, libmvec, libgomp, libgcc_s, ld-linux";

// The crtbeginS.o references (__gmon_start__, __cxa_finalize, _ITM_*TMCloneTable) that the
// toolchain's own load and unload code calls when something defines them: a candidate that
// defines one, even hidden, runs code at load or unload time.
bool startup_hook(std::string_view name);

// Names C reserves for the implementation in every scope: `__x` and `_X`. The toolchain's,
// C++'s mangled (_Z...) and the harness's internal names all look like this.
bool reserved_identifier(std::string_view name);

// Names the harness or the loader owns besides the libraries' exports: main, _start,
// _init, _fini.
bool harness_name(std::string_view name);

}  // namespace hpcreward::symbol_policy
