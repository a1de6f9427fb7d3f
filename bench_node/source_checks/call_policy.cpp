#include "bench_node/source_checks/call_policy.hpp"

#include <map>
#include <set>
#include <utility>

namespace hpcreward::source_checks {

namespace {

bool starts(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string_view basename(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

constexpr std::string_view kBlas = "a BLAS library";

const std::map<std::string_view, std::string_view> &categories() {
  static const std::map<std::string_view, std::string_view> table = [] {
    std::map<std::string_view, std::string_view> t;
    auto add = [&](std::string_view category, std::initializer_list<std::string_view> names) {
      for (std::string_view name : names) t.emplace(name, category);
    };
    add("process control",
        {"fork",    "vfork",       "clone",        "clone3",  "system",    "popen",
         "pclose",  "posix_spawn", "posix_spawnp", "execl",   "execle",    "execlp",
         "execv",   "execve",      "execvp",       "execvpe", "fexecve",   "exit",
         "_exit",   "_Exit",       "quick_exit",   "abort",   "atexit",    "at_quick_exit",
         "on_exit", "kill",        "killpg",       "wait",    "waitpid",   "wait3",
         "wait4",   "waitid",      "setsid",       "setpgid", "setpgrp",   "daemon",
         "ptrace",  "prctl",       "setuid",       "setgid",  "seteuid",   "chroot",
         "unshare", "setns",       "getpid",       "getppid", "setrlimit", "prlimit"});
    add("files and I/O",
        {"open",    "openat",  "creat",    "close",   "read",     "write",     "pread",  "pwrite",
         "readv",   "writev",  "lseek",    "fopen",   "fdopen",   "freopen",   "fclose", "fread",
         "fwrite",  "fprintf", "printf",   "vprintf", "vfprintf", "dprintf",   "puts",   "fputs",
         "fputc",   "putc",    "putchar",  "getchar", "fgets",    "gets",      "scanf",  "fscanf",
         "sscanf",  "sprintf", "snprintf", "perror",  "unlink",   "unlinkat",  "remove", "rename",
         "mkdir",   "rmdir",   "chmod",    "chown",   "truncate", "ftruncate", "dup",    "dup2",
         "dup3",    "pipe",    "pipe2",    "ioctl",   "fcntl",    "stat",      "fstat",  "lstat",
         "access",  "opendir", "readdir",  "symlink", "link",     "chdir",     "getcwd", "sync",
         "fsync",   "tmpfile", "mkstemp",  "mkdtemp", "sendfile", "splice",    "tee",    "fflush",
         "setvbuf", "realpath"});
    add("memory mapping", {"mmap", "munmap", "mprotect", "mremap", "madvise", "memfd_create",
                           "shm_open", "brk", "sbrk", "pkey_mprotect"});
    add("network", {"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
                    "send", "sendto", "sendmsg", "recv", "recvfrom", "recvmsg", "shutdown",
                    "setsockopt", "getsockopt", "getaddrinfo", "gethostbyname"});
    add("dynamic loading", {"dlopen", "dlmopen", "dlsym", "dlvsym", "dlclose", "dladdr", "dlinfo",
                            "dlerror", "dl_iterate_phdr"});
    add("signals", {"signal", "sigaction", "raise", "sigprocmask", "sigsuspend", "alarm",
                    "setitimer", "getitimer", "pause", "sigaltstack", "sigqueue", "timer_create",
                    "timer_settime", "sigemptyset", "sigfillset", "sigaddset"});
    add("threads", {"sched_setaffinity", "sched_yield", "sched_setscheduler", "setpriority", "nice",
                    "call_once"});
    add("clocks and time", {"time",          "clock",         "clock_gettime",   "clock_getres",
                            "gettimeofday",  "times",         "getrusage",       "nanosleep",
                            "sleep",         "usleep",        "clock_nanosleep", "localtime",
                            "gmtime",        "mktime",        "difftime",        "timespec_get",
                            "omp_get_wtime", "omp_get_wtick", "__rdtsc",         "__rdtscp",
                            "_rdtsc",        "__rdpmc",       "_rdpmc"});
    add("environment", {"getenv", "secure_getenv", "setenv", "unsetenv", "putenv", "clearenv",
                        "environ", "getauxval", "sysconf"});
    add("non-local jumps",
        {"setjmp", "longjmp", "_setjmp", "_longjmp", "sigsetjmp", "siglongjmp", "__sigsetjmp"});
    add("system calls", {"syscall"});
    add(kBlas, {"dgemm_", "sgemm_", "dgemm", "sgemm"});
    return t;
  }();
  return table;
}

// Prefixes of whole families (threads, BLAS, exec*).
constexpr std::pair<std::string_view, std::string_view> kFamilies[] = {
    {"pthread_", "threads"},
    {"thrd_", "threads"},
    {"mtx_", "threads"},
    {"cnd_", "threads"},
    {"tss_", "threads"},
    {"cblas_", kBlas},
    {"openblas_", kBlas},
    {"exec", "process control"},
    {"omp_target_", "OpenMP offloading"},
};

// Instructions behind intrinsics and ia32 builtins that read clocks or counters or touch
// process state; matched anywhere in the name (_rdtsc, __builtin_ia32_rdtscp, _xsave64).
constexpr std::string_view kRefusedInstructions[] = {
    "rdtsc",      "rdpmc",       "fsbase",   "gsbase",    "xsave",       "xrstor",
    "fxsave",     "fxrstor",     "incssp",   "rdssp",     "saveprevssp", "rstorssp",
    "wrss",       "wruss",       "setssbsy", "clrssbsy",  "clui",        "stui",
    "testui",     "senduipi",    "encls",    "enclu",     "enclv",       "ptwrite",
    "monitor",    "mwait",       "tpause",   "invpcid",   "wbinvd",      "wbnoinvd",
    "readeflags", "writeeflags", "enqcmd",   "movdir64b", "directstore", "hreset"};

std::optional<std::string_view> refused_instruction(std::string_view name) {
  for (std::string_view stem : kRefusedInstructions)
    if (name.find(stem) != std::string_view::npos) return stem;
  return std::nullopt;
}

const std::set<std::string_view> &allowed_builtins() {
  static const std::set<std::string_view> names = {"expect",
                                                   "expect_with_probability",
                                                   "prefetch",
                                                   "assume_aligned",
                                                   "assume",
                                                   "unreachable",
                                                   "constant_p",
                                                   "fma",
                                                   "fmaf",
                                                   "fmal",
                                                   "sqrt",
                                                   "sqrtf",
                                                   "sqrtl",
                                                   "fabs",
                                                   "fabsf",
                                                   "fabsl",
                                                   "fmin",
                                                   "fminf",
                                                   "fmax",
                                                   "fmaxf",
                                                   "copysign",
                                                   "copysignf",
                                                   "memcpy",
                                                   "memmove",
                                                   "memset",
                                                   "memcmp",
                                                   "huge_val",
                                                   "huge_valf",
                                                   "huge_vall",
                                                   "inf",
                                                   "inff",
                                                   "infl",
                                                   "nan",
                                                   "nanf",
                                                   "nanl",
                                                   "nans",
                                                   "nansf",
                                                   "isnan",
                                                   "isinf",
                                                   "isinf_sign",
                                                   "isfinite",
                                                   "isnormal",
                                                   "signbit",
                                                   "signbitf",
                                                   "signbitl",
                                                   "fpclassify",
                                                   "isgreater",
                                                   "isgreaterequal",
                                                   "isless",
                                                   "islessequal",
                                                   "islessgreater",
                                                   "isunordered",
                                                   "alloca",
                                                   "alloca_with_align",
                                                   "clz",
                                                   "clzl",
                                                   "clzll",
                                                   "ctz",
                                                   "ctzl",
                                                   "ctzll",
                                                   "popcount",
                                                   "popcountl",
                                                   "popcountll",
                                                   "ffs",
                                                   "ffsl",
                                                   "ffsll",
                                                   "bswap16",
                                                   "bswap32",
                                                   "bswap64",
                                                   "add_overflow",
                                                   "sub_overflow",
                                                   "mul_overflow",
                                                   "shufflevector",
                                                   "convertvector",
                                                   "nontemporal_load",
                                                   "nontemporal_store",
                                                   "flt_rounds",
                                                   "object_size",
                                                   "complex"};
  return names;
}

const std::set<std::string_view> &memory_functions() {
  static const std::set<std::string_view> names = {
      "memcpy", "memmove", "memset", "memcmp",        "malloc",
      "calloc", "realloc", "free",   "aligned_alloc", "posix_memalign"};
  return names;
}

// <stdlib.h>'s integer absolute values: pure arithmetic (gcc folds them inline), as harmless
// as <math.h>'s fabs.
bool integer_abs(std::string_view name, std::string_view header) {
  return (name == "abs" || name == "labs" || name == "llabs") && basename(header) == "stdlib.h";
}

// Writing to the candidate's own output, formatting into its own memory, and ending itself:
// the filter lets write reach only fds 1 and 2 (and refuses every open), so these reach
// nothing outside the process (a failed assert ends the call as runtime_error).
bool own_output_or_end(std::string_view name, std::string_view header) {
  static const std::set<std::string_view> stdio = {
      "printf", "fprintf", "vprintf", "vfprintf", "puts",     "fputs",     "putchar", "fputc",
      "putc",   "fwrite",  "fflush",  "perror",   "sprintf",  "snprintf",  "vsprintf", "vsnprintf"};
  const std::string_view file = basename(header);
  if (file == "stdio.h" || starts(file, "stdio2")) return stdio.count(name) != 0;
  if (file == "assert.h") return name == "__assert_fail" || name == "__assert_perror_fail";
  if (file == "stdlib.h") return name == "abort" || name == "exit" || name == "_Exit";
  return false;
}

bool math_header(std::string_view header) {
  const std::string_view name = basename(header);
  return name == "math.h" || starts(name, "mathcalls");
}

bool refused_omp(std::string_view name) {
  return name == "omp_get_wtime" || name == "omp_get_wtick" || starts(name, "omp_display_") ||
         starts(name, "omp_target_");
}

}  // namespace

std::optional<std::string_view> function_category(std::string_view name) {
  if (auto found = categories().find(name); found != categories().end()) return found->second;
  for (const auto &[prefix, category] : kFamilies)
    if (starts(name, prefix)) return category;
  if (refused_instruction(name)) return "clocks, counters or process state";
  return std::nullopt;
}

bool builtin_name(std::string_view name) {
  return starts(name, "__builtin_") || starts(name, "__sync_") || starts(name, "__atomic_") ||
         starts(name, "__c11_atomic_");
}

bool allowed_builtin(std::string_view name) {
  // Atomic operations and fences (<stdatomic.h> expands to them): loads and stores on memory
  // the candidate reaches anyway.
  if (starts(name, "__atomic_") || starts(name, "__c11_atomic_") || starts(name, "__sync_"))
    return true;
  if (!starts(name, "__builtin_")) return false;
  const std::string_view rest = name.substr(std::string_view("__builtin_").size());
  if (starts(rest, "ia32_")) return !refused_instruction(rest);
  return allowed_builtins().count(rest) != 0 || starts(rest, "elementwise_") ||
         starts(rest, "reduce_");
}

std::optional<std::string> library_call_refusal(std::string_view name, std::string_view header) {
  if (memory_functions().count(name) != 0 || math_header(header) || integer_abs(name, header) ||
      own_output_or_end(name, header))
    return std::nullopt;
  if (basename(header) == "omp.h" && starts(name, "omp_") && !refused_omp(name))
    return std::nullopt;
  if (auto category = function_category(name)) return "(" + std::string(*category) + ")";
  return std::string("(library functions allowed: memory functions, <math.h>, abs, omp_*, and output "
                     "to stdout and stderr: printf, puts, fprintf(stderr, ...), assert, abort, exit)");
}

std::optional<std::string> inline_call_refusal(std::string_view name) {
  if (auto stem = refused_instruction(name))
    return "(reads clocks or counters, or changes process state: " + std::string(*stem) + ")";
  return std::nullopt;
}

bool library_name(std::string_view name) {
  static const std::set<std::string_view> data = {"environ",
                                                  "stdin",
                                                  "stdout",
                                                  "stderr",
                                                  "optarg",
                                                  "optind",
                                                  "opterr",
                                                  "optopt",
                                                  "program_invocation_name",
                                                  "program_invocation_short_name",
                                                  "timezone",
                                                  "daylight",
                                                  "tzname",
                                                  "signgam",
                                                  "getdate_err"};
  // BLAS is no library of the executor's: a helper may be named dgemm.
  const auto category = categories().find(name);
  return data.count(name) != 0 || memory_functions().count(name) != 0 ||
         (category != categories().end() && category->second != kBlas);
}

}  // namespace hpcreward::source_checks
