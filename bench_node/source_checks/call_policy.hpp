#pragma once
// Which functions the candidate's own code may call. The rule is general, the lists small:
//   - functions the candidate defines in its file: always;
//   - library functions (declared, not defined, by an allowed header): only the memory
//     functions (memcpy, memmove, memset, memcmp, malloc, calloc, realloc, free,
//     aligned_alloc, posix_memalign), everything <math.h> declares, <stdlib.h>'s abs, labs
//     and llabs (arithmetic, no more than fabs), <stdio.h>'s output to stdout and stderr
//     and formatting into memory (printf, fprintf, puts, putchar, fwrite, fflush, perror,
//     snprintf, ...: the filter lets writes reach fds 1 and 2 only and refuses every open, so
//     no stream but those two can exist), assert, abort and exit, and the omp_* API except
//     its clocks (omp_get_wtime, omp_get_wtick), output (omp_display_*) and offloading
//     (omp_target_*) - the same imports the object audit accepts;
//   - inline functions of the allowed headers named _x or __x (the x86 intrinsics): all but
//     the few that read clocks or counters or touch process state (rdtsc, rdpmc, fs/gs base,
//     xsave, shadow stack, user interrupts, monitor/mwait, ...); the C library's own inline
//     functions (atof) count as library functions;
//   - compiler builtins (__builtin_*): only hints, arithmetic, memory copies, floating-point
//     classification, vector shuffles and the x86 vector builtins (__builtin_ia32_*, minus
//     the same clock and process-state ones), and the atomics (__atomic_*, __c11_atomic_*,
//     __sync_*: what <stdatomic.h> expands to); not __builtin_frame_address,
//     __builtin_return_address, __builtin_trap, __builtin_apply, __builtin_longjmp, ...;
//   - a function neither defined in the file nor declared by a header (a hand-written prototype,
//     an undeclared call): refused here only when its name is a known danger (function_category);
//     any other is the linker's and the object audit's (a helper the answer forgot fails the
//     link, a compile_error; a library's function is an import the audit judges).
// The categories below only name why a refused function is dangerous.
#include <optional>
#include <string>
#include <string_view>

namespace hpcreward::source_checks {

// "process control", "files and I/O", "network", "dynamic loading", "signals", "threads",
// "clocks and time", "environment", "non-local jumps", "system calls", "memory mapping",
// "a BLAS library"; nullopt for names without a known danger.
std::optional<std::string_view> function_category(std::string_view name);

// Names the compiler treats as builtins: __builtin_*, __sync_*, __atomic_*, __c11_atomic_*.
bool builtin_name(std::string_view name);
bool allowed_builtin(std::string_view name);

// A library function `name` declared (without a body) in `header` (the declaring file's
// path): nullopt when the candidate may call it, else why not.
std::optional<std::string> library_call_refusal(std::string_view name, std::string_view header);

// An inline function of an allowed header (an intrinsic): nullopt when it may be called.
std::optional<std::string> inline_call_refusal(std::string_view name);

// C library functions and data the candidate must not define with external linkage (the
// dynamic linker would bind the name to the library's symbol: `char **environ;` reads the
// real environment). Not BLAS names: the executor never loads a BLAS, so a helper the file
// defines may be called dgemm (calling an undefined one stays refused).
bool library_name(std::string_view name);

}  // namespace hpcreward::source_checks
