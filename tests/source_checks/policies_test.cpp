// The allow-lists on their own: calls, builtins, intrinsics, attributes, stage flags.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench_node/source_checks/attribute_rules.hpp"
#include "bench_node/source_checks/c_attribute_policy.hpp"
#include "bench_node/source_checks/call_policy.hpp"
#include "bench_node/source_checks/omp_header.hpp"
#include "bench_node/source_checks/lex_options.hpp"

namespace hpcreward::source_checks {
namespace {

TEST(CallPolicy, LibraryFunctions) {
  EXPECT_FALSE(library_call_refusal("memcpy", "/usr/include/string.h"));
  EXPECT_FALSE(library_call_refusal("aligned_alloc", "/usr/include/stdlib.h"));
  EXPECT_FALSE(library_call_refusal("sqrt", "/usr/include/x86_64-linux-gnu/bits/mathcalls.h"));
  EXPECT_FALSE(library_call_refusal("omp_get_thread_num", "/tmp/x/include/omp.h"));
  EXPECT_EQ(*library_call_refusal("omp_get_wtime", "/tmp/x/include/omp.h"), "(clocks and time)");
  EXPECT_TRUE(library_call_refusal("omp_target_alloc", "/tmp/x/include/omp.h"));
  EXPECT_TRUE(library_call_refusal("omp_display_env", "/tmp/x/include/omp.h"));
  EXPECT_EQ(*library_call_refusal("system", "/usr/include/stdlib.h"), "(process control)");
  EXPECT_EQ(*library_call_refusal("getenv", "/usr/include/stdlib.h"), "(environment)");
  EXPECT_NE(library_call_refusal("qsort", "/usr/include/stdlib.h")->find("allowed: memory"),
            std::string::npos);
  EXPECT_TRUE(library_call_refusal("strlen", "/usr/include/string.h"));
  EXPECT_FALSE(library_call_refusal("abs", "/usr/include/stdlib.h"));
  EXPECT_FALSE(library_call_refusal("llabs", "/usr/include/stdlib.h"));
  EXPECT_TRUE(library_call_refusal("abs", "/usr/include/x86_64-linux-gnu/bits/stdlib-float.h"));
  EXPECT_TRUE(library_call_refusal("div", "/usr/include/stdlib.h"));
}

TEST(CallPolicy, Categories) {
  EXPECT_EQ(*function_category("fork"), "process control");
  EXPECT_EQ(*function_category("execvpe"), "process control");
  EXPECT_EQ(*function_category("pthread_create"), "threads");
  EXPECT_EQ(*function_category("cblas_dgemm"), "a BLAS library");
  EXPECT_EQ(*function_category("dlsym"), "dynamic loading");
  EXPECT_EQ(*function_category("clock_gettime"), "clocks and time");
  EXPECT_EQ(*function_category("syscall"), "system calls");
  EXPECT_EQ(*function_category("mprotect"), "memory mapping");
  EXPECT_FALSE(function_category("kernel_8x8"));
}

TEST(CallPolicy, Builtins) {
  for (const char *name :
       {"__builtin_expect", "__builtin_prefetch", "__builtin_assume_aligned", "__builtin_fma",
        "__builtin_memcpy", "__builtin_isnan", "__builtin_nanf", "__builtin_ia32_vfmaddpd512_mask",
        "__builtin_shufflevector", "__builtin_unreachable",
        // atomics and fences, what <stdatomic.h> expands to
        "__sync_fetch_and_add", "__sync_synchronize", "__atomic_load_n", "__atomic_thread_fence",
        "__c11_atomic_thread_fence", "__c11_atomic_fetch_add"})
    EXPECT_TRUE(allowed_builtin(name)) << name;
  for (const char *name :
       {"__builtin_frame_address", "__builtin_return_address", "__builtin_trap", "__builtin_apply",
        "__builtin_longjmp", "__builtin_ia32_rdtsc", "__builtin_ia32_rdtscp",
        "__builtin_ia32_wrfsbase64", "__builtin_readcyclecounter", "__builtin_printf"})
    EXPECT_FALSE(allowed_builtin(name)) << name;
  EXPECT_TRUE(builtin_name("__sync_fetch_and_add"));
  EXPECT_FALSE(builtin_name("builtin_x"));
}

TEST(CallPolicy, Intrinsics) {
  EXPECT_FALSE(inline_call_refusal("_mm512_fmadd_pd"));
  EXPECT_FALSE(inline_call_refusal("_mm_prefetch"));
  for (const char *name : {"__rdtsc", "__rdtscp", "_rdtsc", "_writefsbase_u64", "_xsave64",
                           "_mm_monitor", "_umwait", "_incsspq", "_senduipi"})
    EXPECT_TRUE(inline_call_refusal(name)) << name;
}

TEST(CallPolicy, LibraryNames) {
  for (const char *name : {"environ", "stdout", "clock_gettime", "malloc", "fork"})
    EXPECT_TRUE(library_name(name)) << name;
  EXPECT_FALSE(library_name("pack_panel"));
  // No BLAS is loaded where the candidate runs: its names are free for helpers.
  for (const char *name : {"dgemm", "dgemm_", "sgemm", "cblas_dgemm"}) EXPECT_FALSE(library_name(name)) << name;
}

// The attribute names in a declaration as clang prints it.
std::vector<std::string> printed_attributes(std::string_view printed) {
  std::vector<std::string> names;
  for (const WrittenAttribute &attribute : written_attributes(lex_c(printed))) names.push_back(attribute.name);
  return names;
}

bool allowed_attribute(std::string_view name) { return !attribute_refusal(name, 1, c_attribute_table()); }

TEST(AttributeRules, NamesFromPrintedDeclarations) {
  EXPECT_EQ(
      printed_attributes(
          "static void f() __attribute__((constructor(101))) __attribute__((section(\".x\")))"),
      (std::vector<std::string>{"constructor", "section"}));
  EXPECT_EQ(printed_attributes("static void f() [[gnu::constructor(65535)]] [[gnu::cold, hot]]"),
            (std::vector<std::string>{"constructor", "cold", "hot"}));
  EXPECT_EQ(printed_attributes("int g __attribute__((aligned(64), __used__))"),
            (std::vector<std::string>{"aligned", "__used__"}));
  EXPECT_EQ(printed_attributes("const char *s = \"__attribute__((constructor))\""),
            std::vector<std::string>{});
  EXPECT_EQ(printed_attributes("__declspec(dllexport) int x"),
            (std::vector<std::string>{"dllexport"}));
  EXPECT_EQ(printed_attributes("__declspec(dllexport) __attribute__((constructor)) int x"),
            (std::vector<std::string>{"dllexport", "constructor"}));
}

TEST(AttributeRules, CAllowList) {
  for (const char *name : {"aligned", "__aligned__", "always_inline", "noinline", "hot", "cold",
                           "const", "pure", "vector_size", "__vector_size__", "unused"})
    EXPECT_TRUE(allowed_attribute(name)) << name;
  for (const char *name :
       {"constructor", "__destructor__", "ifunc", "section", "alias", "weak", "visibility", "used",
        "optimize", "target", "target_clones", "cleanup", "naked", "symver", "dllexport"})
    EXPECT_FALSE(allowed_attribute(name)) << name;
  EXPECT_EQ(attribute_refusal("__constructor__", 3, c_attribute_table()),
            "attribute constructor at line 3 runs code when the object is loaded or unloaded");
  EXPECT_NE(attribute_refusal("optimize", 1, c_attribute_table())->find("changes code generation"),
            std::string::npos);
  EXPECT_NE(attribute_refusal("dllexport", 2, c_attribute_table())->find("is not on the allow-list (allowed: aligned, "),
            std::string::npos);
}

TEST(LexOptions, TrigraphsAndDigitSeparatorsFollowTheStandard) {
  EXPECT_FALSE(lex_options({"-O3"}).trigraphs);
  EXPECT_TRUE(lex_options({"-std=c11"}).trigraphs);
  EXPECT_TRUE(lex_options({"-ansi"}).trigraphs);
  EXPECT_FALSE(lex_options({"-std=c11", "-std=gnu17"}).trigraphs);
  EXPECT_TRUE(lex_options({"-trigraphs"}).trigraphs);
  EXPECT_FALSE(lex_options({"-O3"}).digit_separators);
  EXPECT_TRUE(lex_options({"-std=c2x"}).digit_separators);
  EXPECT_TRUE(lex_options({"-std=gnu2x"}).digit_separators);
}

TEST(OmpHeader, GccMallocDeallocatorFormIsReduced) {
  EXPECT_EQ(clang_compatible_omp_header(
                "void *omp_alloc (int) __attribute__((__malloc__, __malloc__ (omp_free), x));"),
            "void *omp_alloc (int) __attribute__((__malloc__, __malloc__, x));");
  EXPECT_EQ(clang_compatible_omp_header("__malloc__(f)"), "__malloc__");
}

}  // namespace
}  // namespace hpcreward::source_checks
