#include "bench_node/object_audit/c_symbol_policy.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

std::optional<std::string> import_refusal(std::string_view name) { return hpcreward::import_refusal(name, c_import_table()); }
bool allowed_library(std::string_view soname) { return hpcreward::allowed_library(soname, c_import_table()); }

TEST(CSymbolPolicy, AllowsMathMemoryOpenMpAndTheToolchain) {
  for (const char *name :
       {"sqrt", "sqrtf", "sqrtl", "fma", "fmaf", "fabs", "exp", "expf", "exp10", "sincos", "pow",
        "erf", "erff", "modff", "_ZGVdN4v_exp", "_ZGVeN16v_expf", "_ZGVbN2vv_pow", "memcpy",
        "memmove", "memset", "memcmp", "malloc", "calloc", "realloc", "free", "aligned_alloc",
        "posix_memalign", "__memcpy_chk", "abs", "labs", "llabs", "GOMP_parallel", "GOMP_critical_start",
        "GOMP_atomic_start", "GOMP_loop_nonmonotonic_dynamic_start", "GOMP_task",
        "GOMP_taskloop", "GOMP_barrier", "GOMP_single_start", "GOMP_teams_reg",
        "omp_get_thread_num", "omp_get_num_threads", "omp_get_max_threads", "omp_set_lock",
        "__cxa_finalize", "_ITM_registerTMCloneTable", "_ITM_deregisterTMCloneTable",
        "__gmon_start__", "__stack_chk_fail", "__tls_get_addr"})
    EXPECT_EQ(import_refusal(name), std::nullopt) << name;
}

TEST(CSymbolPolicy, RefusesEverythingElse) {
  for (const char *name :
       {"cblas_dgemm", "dgemm_", "dlopen", "dlsym", "clock_gettime", "gettimeofday", "time",
        "pthread_create", "fork", "system", "execve", "write", "open", "fopen", "fdopen", "scanf",
        "getchar", "syscall", "signal", "_exit", "atexit", "__libc_start_main", "__errno_location",
        "environ", "stdin", "mmap", "mprotect", "strlen", "rand", "div", "absx", "sqrtq", "_ZGVdN4v_fork",
        "_ZGV", "f", "l", "GOACC_parallel", "acc_malloc"})
    EXPECT_NE(import_refusal(name), std::nullopt) << name;
  EXPECT_EQ(import_refusal("clock_gettime"),
            "only libm, memory and OpenMP runtime functions are allowed, and output to stdout and stderr "
            "(printf, puts, fwrite, fflush, assert, abort, exit)");
}

// Under the filter, writes reach fds 1 and 2 only and no file can be opened: output to the
// candidate's own streams, formatting into memory and ending itself reach nothing outside.
TEST(CSymbolPolicy, AllowsOwnOutputAssertAndEnding) {
  for (const char *name : {"printf", "fprintf", "puts", "putchar", "fputs", "fwrite", "fflush", "perror",
                           "snprintf", "__printf_chk", "__fprintf_chk", "__snprintf_chk", "stdout", "stderr",
                           "__assert_fail", "abort", "exit", "_Exit"})
    EXPECT_EQ(import_refusal(name), std::nullopt) << name;
}

TEST(CSymbolPolicy, RefusesOpenMpClocksOutputAndOffloading) {
  EXPECT_EQ(import_refusal("omp_get_wtime"), "a clock: the harness owns the clock");
  for (const char *name : {"omp_get_wtime_", "omp_get_wtick", "omp_display_env",
                           "omp_display_affinity", "GOMP_error", "GOMP_warning", "GOMP_target_ext",
                           "GOMP_offload_register_ver", "omp_target_alloc", "GOMP_PLUGIN_malloc"})
    EXPECT_NE(import_refusal(name), std::nullopt) << name;
}

TEST(CSymbolPolicy, Libraries) {
  for (const char *name : {"libc.so.6", "libm.so.6", "libmvec.so.1", "libgomp.so.1",
                           "libgcc_s.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"})
    EXPECT_TRUE(allowed_library(name)) << name;
  for (const char *name : {"libopenblas.so.0", "libdl.so.2", "libpthread.so.0", "libc.so",
                           "libgomp.so.1.0.0", "libcblas.so.3", ""})
    EXPECT_FALSE(allowed_library(name)) << name;
}

TEST(CSymbolPolicy, ReservedAndHarnessNames) {
  for (const char *name : {"__x", "__libc_start_main", "_Exit", "_ZN9hpcreward4mainEv", "_ITM_x"})
    EXPECT_TRUE(reserved_identifier(name)) << name;
  for (const char *name : {"_", "_x", "x__", "matmul", "kernel_8x8", ""})
    EXPECT_FALSE(reserved_identifier(name)) << name;
  for (const char *name : {"main", "_start", "_init", "_fini"}) EXPECT_TRUE(harness_name(name));
  for (const char *name : {"__gmon_start__", "__cxa_finalize", "_ITM_registerTMCloneTable",
                           "_ITM_deregisterTMCloneTable"})
    EXPECT_TRUE(startup_hook(name)) << name;
  EXPECT_FALSE(startup_hook("__stack_chk_fail"));
  EXPECT_FALSE(harness_name("matmul"));
}

TEST(CSymbolPolicy, VectorVariantBase) {
  EXPECT_EQ(vector_variant_base("_ZGVbN2vv_scaled_add"), "scaled_add");
  EXPECT_EQ(vector_variant_base("_ZGVeM16v_expf"), "expf");
  EXPECT_EQ(vector_variant_base("_ZGVdN4ul2v_kernel"), "kernel");
  EXPECT_EQ(vector_variant_base("_ZGVsMxv_sin"), "sin");
  for (const char *name : {"_ZGV", "_ZGVbN2v_", "_ZGVbN2v", "_ZGVbX2v_f", "_ZGVBN2v_f", "_ZGVbNv_f",
                           "_ZGVbN2v!_f", "_ZN3fooEv", "scaled_add"})
    EXPECT_EQ(vector_variant_base(name), std::nullopt) << name;
}

}  // namespace
}  // namespace hpcreward
