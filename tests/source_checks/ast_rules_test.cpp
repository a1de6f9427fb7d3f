// The syntax-tree rules, end to end through SourceChecks::check_source: for each, a
// candidate that uses the construct, one that does not, and one that only mentions it in a
// comment or a string.
#include <gtest/gtest.h>

#include "check_support.hpp"

namespace hpcreward::source_checks_test {
namespace {

const std::string kMentions =
    "// __asm__(\"syscall\"); fork(); system(\"x\"); __attribute__((constructor))\n"
    "/* extern char **environ; int fork(void); goto *p; (char *)memcpy + 16 */\n"
    "static const char *notes = \"asm(\\\"nop\\\") __builtin_frame_address(0) exit(1) \"\n"
    "                           \"__attribute__((section(\\\".init_array\\\")))\";\n";

TEST(AstRules, MentionsInCommentsAndStringsNeverCount) {
  EXPECT_PASSES("#include <string.h>\n" + kMentions + kMatmul);
}

TEST(AstRules, InlineAssemblyInEveryForm) {
  EXPECT_REFUSED(kSignature + " { __asm__ volatile(\"\" ::: \"memory\"); }\n", forbidden,
                 "inline assembly at line 1");
  EXPECT_REFUSED(kSignature + " { asm(\"nop\"); }\n", forbidden, "inline assembly");
  EXPECT_REFUSED("__asm__(\".globl hidden\");\n" + kMatmul, forbidden,
                 "inline assembly at line 1 (file-scope asm)");
  EXPECT_REFUSED(
      "int innocent(void) __asm__(\"getpid\");\nint innocent(void) { return 0; }\n" + kMatmul,
      forbidden, "asm label at line 1");
  EXPECT_REFUSED(kSignature + " { register long sp __asm__(\"rsp\"); (void)sp; }\n", forbidden,
                 "asm label");
  EXPECT_REFUSED("#define BARRIER __asm__ volatile(\"\")\n" + kSignature + " { BARRIER; }\n",
                 forbidden, "inline assembly at line 2");
  // A keyword pasted together is still seen in the syntax tree.
  EXPECT_REFUSED("#define CAT(a, b) a##b\n" + kSignature + " { CAT(__as, m__)(\"nop\"); }\n",
                 forbidden, "inline assembly at line 2");
  EXPECT_PASSES(kMatmul);
}

TEST(AstRules, LoadTimeAndSymbolAttributes) {
  for (const char *attribute :
       {"constructor", "destructor", "__constructor__(101)", "used", "section(\".init_array\")",
        "visibility(\"hidden\")", "optimize(\"O3\")", "target(\"avx512f\")", "naked",
        "noinline, constructor"}) {
    const std::string source =
        std::string("__attribute__((") + attribute + ")) static void f(void) { }\n" + kMatmul;
    const Verdict verdict = check(source);
    EXPECT_EQ(verdict.status, Status::forbidden) << attribute << ": " << verdict.reason;
    EXPECT_NE(verdict.reason.find("attribute"), std::string::npos) << verdict.reason;
  }
  EXPECT_REFUSED("static void release(double **p) { (void)p; }\n" + kSignature +
                     " {\n  double *t __attribute__((cleanup(release))) = C;\n  (void)t;\n}\n",
                 forbidden, "attribute cleanup at line 3 calls a function implicitly");
  EXPECT_REFUSED("[[gnu::constructor]] static void f(void) { }\n" + kMatmul, forbidden,
                 "attribute constructor at line 1 runs code when the object is loaded");
  EXPECT_REFUSED(
      "static void real(void) { }\nstatic void *resolve(void) { return 0; }\n"
      "void entry(void) __attribute__((ifunc(\"resolve\")));\n" +
          kMatmul,
      forbidden, "attribute ifunc at line 3");
  EXPECT_REFUSED("static void g(void) { }\nvoid h(void) __attribute__((alias(\"g\")));\n" + kMatmul,
                 forbidden, "attribute alias");
  EXPECT_REFUSED("__attribute__((weak)) int w;\n" + kMatmul, forbidden, "attribute weak");
  EXPECT_REFUSED(
      "static void at_load(void) { }\n"
      "__attribute__((section(\".init_array\"), used)) static void (*run)(void) = at_load;\n" +
          kMatmul,
      forbidden, "attribute section at line 2");
  EXPECT_REFUSED(
      "__attribute__((target_clones(\"avx2\", \"default\"))) static int t(void) { return 0; }\n" +
          kMatmul,
      forbidden, "attribute target_clones");
  // Through macros, pasted names included: the parser sees the attribute itself.
  EXPECT_REFUSED(
      "#define CTOR __attribute__((constructor))\nCTOR static void f(void) { }\n" + kMatmul,
      forbidden, "attribute constructor at line 2");
  EXPECT_REFUSED(
      "#define CAT(a, b) a##b\n__attribute__((CAT(con, structor))) static void f(void) { }\n" +
          kMatmul,
      forbidden, "attribute constructor");
  // gcc-only attributes clang ignores come back through its warnings.
  EXPECT_REFUSED("__attribute__((optimize(\"O3\")))\n" + kMatmul, forbidden,
                 "attribute optimize at line 1 changes code generation", {"-O0"});
}

TEST(AstRules, HarmlessAttributesPass) {
  EXPECT_PASSES(
      "typedef double v8d __attribute__((vector_size(64), aligned(64)));\n"
      "static double buffer[64] __attribute__((aligned(64)));\n"
      "__attribute__((always_inline, hot)) static inline double twice(double x) { return 2 * x; }\n"
      "__attribute__((noinline, unused)) static void cold_path(void) { }\n"
      "static _Alignas(64) double aligned_buffer[8];\n" +
      kSignature + " { (void)buffer; (void)aligned_buffer; C[0] = twice(A[0] * B[0]); }\n");
}

TEST(AstRules, CallsOfKnownDangersThroughHandWrittenPrototypesAreRefused) {
  EXPECT_REFUSED("int fork(void);\n" + kSignature + " { fork(); }\n", forbidden,
                 "call to fork at line 2 (process control): not defined in the file nor declared "
                 "by a header");
  EXPECT_REFUSED(
      "void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *,"
      " int, double, double *, int);\n" +
          kSignature + " { cblas_dgemm(101, 111, 111, m, n, k, 1, A, k, B, n, 0, C, n); }\n",
      forbidden, "call to cblas_dgemm at line 2 (a BLAS library): not defined in the file");
  EXPECT_REFUSED("void dgemm_(void);\n" + kSignature + " { void (*f)(void) = dgemm_; f(); }\n",
                 forbidden, "takes the address of dgemm_ at line 2");
  // A hand-written prototype of a function of no known danger: the object audit judges the import.
  EXPECT_PASSES("void *malloc(unsigned long);\n" + kSignature + " { C[0] = malloc(8) != 0; }\n");
  EXPECT_REFUSED(kSignature + " {\n  int fork(void);\n  fork();\n}\n", forbidden,
                 "call to fork at line 3");
  // A prototype alone reaches nothing: one never called (left over, or of a library function).
  EXPECT_PASSES("double dot(const double *x, const double *y, int n);\nint fork(void);\n" + kMatmul);
  EXPECT_PASSES("void *malloc(unsigned long);\n" + kMatmul);
  // A helper the file defines may have a BLAS name; an undefined one stays refused (above).
  EXPECT_PASSES("void dgemm_nn(double *c) { c[0] += 0; }\nvoid dgemm(double *c) { dgemm_nn(c); }\n" +
                kSignature + " { dgemm(C); }\n");
  // A prototype of a helper the file defines later is fine, and so are static helpers.
  EXPECT_PASSES(
      "static double dot(const double *a, const double *b, int n, int stride);\n"
      "double scale(double);\n" +
      kSignature +
      " {\n  for (int i = 0; i < m; ++i)\n    for (int j = 0; j < n; ++j)\n"
      "      C[i * n + j] = scale(dot(A + i * k, B + j, k, n));\n}\n"
      "static double dot(const double *a, const double *b, int n, int stride) {\n"
      "  double s = 0;\n  for (int p = 0; p < n; ++p) s += a[p] * b[p * stride];\n"
      "  return s;\n}\ndouble scale(double x) { return x; }\n");
}

TEST(AstRules, HelpersDefinedFurtherDownPass) {
  // Called before any declaration: gcc declares them implicitly (a warning) and links the
  // definition below; clang keeps that declaration apart when the types differ (void, double).
  EXPECT_PASSES(kSignature + " { add_row(C, A, m); C[1] = dot(A, B, k); }\n"
                "void add_row(double *c, const double *a, int n) { for (int j = 0; j < n; ++j) c[j] += a[j]; }\n"
                "double dot(const double *a, const double *b, int n) { return a[0] * b[0] * n; }\n");
  EXPECT_PASSES(kSignature + " { C[0] = twice(A[0]); }\nint twice(double x) { return 2 * x; }\n", kOpenMp);
  // What is neither defined nor declared (a helper the answer forgot) is the linker's: no library
  // has it, so the build fails (compile_error), as gcc -Wl,-z,defs says. A known danger is refused.
  EXPECT_PASSES(kSignature + " { add_row(C, A, m); }\nvoid add_rows(double *c) { c[0] = 0; }\n");
  EXPECT_REFUSED(kSignature + " { fork(); }\nvoid add_rows(double *c) { c[0] = 0; }\n", forbidden,
                 "call to fork at line 1 (process control): not defined in the file nor declared by a header");
}

TEST(AstRules, ExternVariablesAreRefused) {
  EXPECT_REFUSED("extern char **environ;\n" + kSignature + " { C[0] = environ[0][0]; }\n",
                 forbidden, "extern variable environ at line 1");
  EXPECT_REFUSED(kSignature + " {\n  extern int counter;\n  C[0] = counter;\n}\n", forbidden,
                 "extern variable counter at line 2");
  // Defining a library's variable binds it to the library's: the same leak.
  EXPECT_REFUSED("char **environ;\n" + kSignature + " { C[0] = environ[0][0]; }\n", forbidden,
                 "defines environ at line 1, a C library name");
  EXPECT_PASSES("static int calls;\ndouble scratch[16];\n" + kSignature +
                " { ++calls; scratch[0] = 0; C[0] = A[0] * B[0]; }\n");
}

TEST(AstRules, CallsOutsideTheAllowListAreRefused) {
  EXPECT_REFUSED("#include <stdlib.h>\n" + kSignature + " { system(\"x\"); }\n", forbidden,
                 "call to system at line 2 (process control)");
  EXPECT_REFUSED("#include <stdio.h>\n" + kSignature + " { C[0] = fopen(\"x\", \"w\") != 0; }\n", forbidden,
                 "call to fopen at line 2 (files and I/O)");
  EXPECT_REFUSED("#include <stdio.h>\n" + kSignature + " { C[0] = getchar(); }\n", forbidden,
                 "call to getchar at line 2 (files and I/O)");
  EXPECT_REFUSED("#include <stdlib.h>\n" + kSignature + " { C[0] = getenv(\"X\") != 0; }\n",
                 forbidden, "call to getenv at line 2 (environment)");
  EXPECT_REFUSED("#include <stdlib.h>\n" + kSignature + " { C[0] = rand(); }\n", forbidden,
                 "call to rand at line 2 (library functions allowed: memory functions");
  // atof is inline in glibc's header when optimizing; it is still a library function.
  EXPECT_REFUSED("#include <stdlib.h>\n" + kSignature + " { C[0] = atof(\"1\"); }\n", forbidden,
                 "call to atof at line 2 (library functions allowed", {"-O2"});
  // Undeclared: gcc would compile it with a warning and link it from libc.
  EXPECT_REFUSED(kSignature + " { fork(); }\n", forbidden,
                 "call to fork at line 1 (process control): not defined in the file nor declared by a header");
  // One of no known danger, undeclared or hand-declared, is the linker's and the audit's.
  EXPECT_PASSES(kSignature + " { memcpy(C, A, 8); }\n");
  EXPECT_PASSES("double dot(const double *, const double *, int);\n" + kSignature + " { C[0] = dot(A, B, k); }\n");
  // Through a macro: the call is where the macro is used.
  EXPECT_REFUSED("#include <stdlib.h>\n#define QUIT system(\"x\")\n" + kSignature + " { QUIT; }\n",
                 forbidden, "call to system at line 3");
}

// Output to the candidate's own stdout and stderr, assert and ending itself reach nothing
// outside its process under the filter (writes only to fds 1 and 2, no open).
TEST(AstRules, OwnOutputAssertAndEndingPass) {
  EXPECT_PASSES("#include <stdio.h>\n#include <stdlib.h>\n#include <assert.h>\n" + kSignature +
                " {\n  assert(m > 0 && n > 0);\n  double *t = malloc(8);\n"
                "  if (!t) { fprintf(stderr, \"out of memory\\n\"); exit(1); }\n"
                "  if (k < 0) abort();\n  char note[32];\n  snprintf(note, sizeof note, \"%d\", m);\n"
                "  printf(\"%s\\n\", note); puts(\"x\"); putchar('x'); fflush(stdout);\n  free(t);\n}\n");
}

// Calls in code matmul never reaches are not judged: the linker drops that code.
TEST(AstRules, CallsMatmulNeverReachesAreNotJudged) {
  const std::string self_test =
      "#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n" + kSignature +
      " { C[0] = A[0] * B[0]; }\n"
      "static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec; }\n"
      "int main(void) {\n  FILE *f = fopen(\"log\", \"w\");\n  double a = rand(), b = 2, c;\n"
      "  double t0 = now();\n  matmul(1, 1, 1, &a, &b, &c);\n  fprintf(f, \"%f %f\\n\", c, now() - t0);\n"
      "  return system(\"true\");\n}\n";
  EXPECT_PASSES(self_test);
  // Reached through a helper, or through a function pointer in data: judged.
  EXPECT_REFUSED("#include <stdlib.h>\nstatic void helper(void) { system(\"x\"); }\n" + kSignature +
                     " { helper(); }\n",
                 forbidden, "call to system at line 2");
  EXPECT_REFUSED("#include <stdlib.h>\nstatic void helper(void) { system(\"x\"); }\n"
                 "static void (*const hook)(void) = helper;\n" + kSignature + " { hook(); }\n",
                 forbidden, "call to system at line 2");
  // Inline assembly is refused wherever it is.
  EXPECT_REFUSED(kSignature + " { C[0] = 0; }\nint main(void) { __asm__(\"nop\"); return 0; }\n", forbidden,
                 "inline assembly");
}

TEST(AstRules, AllowedLibraryCallsAndIntrinsicsPass) {
  EXPECT_PASSES(
      "#include <stdlib.h>\n#include <string.h>\n#include <math.h>\n" + kSignature +
      " {\n  double *t = aligned_alloc(64, 64 * sizeof(double));\n"
      "  double *u = malloc(8), *v = calloc(1, 8);\n  u = realloc(u, 16);\n"
      "  memset(C, 0, sizeof(double) * m * n);\n  memcpy(t, A, 8); memmove(t, t + 1, 8);\n"
      "  C[0] = sqrt(fabs(A[0])) + exp(B[0]) + fma(A[0], B[0], 1) + NAN + INFINITY;\n"
      "  if (isnan(C[0]) || isinf(C[0])) C[0] = HUGE_VAL;\n  free(t); free(u); free(v);\n}\n");
  EXPECT_PASSES(
      "#include <omp.h>\n" + kSignature +
          " {\n  #pragma omp parallel\n  { C[omp_get_thread_num()] = omp_get_num_threads(); }\n}\n",
      kOpenMp);
  EXPECT_PASSES("#include <omp.h>\n" + kSignature + " { C[0] = omp_get_max_threads(); }\n", kO3);
  EXPECT_REFUSED("#include <omp.h>\n" + kSignature + " { C[0] = omp_get_wtime(); }\n", forbidden,
                 "call to omp_get_wtime at line 2 (clocks and time)", kOpenMp);
  EXPECT_REFUSED("#include <immintrin.h>\n" + kSignature + " { C[0] = __rdtsc(); }\n", forbidden,
                 "call to __rdtsc at line 2", kAvx512);
  // x86intrin.h and mmintrin.h: their intrinsics are judged by name like immintrin.h's.
  EXPECT_PASSES("#include <x86intrin.h>\n#include <mmintrin.h>\n" + kSignature +
                " {\n  __m128d s = _mm_mul_pd(_mm_loadu_pd(A), _mm_loadu_pd(B));\n"
                "  _mm_storeu_pd(C, _mm_add_pd(s, _mm_setzero_pd()));\n  _mm_empty();\n}\n");
  for (const char *clock : {"__rdtsc()", "_rdtsc()", "__rdtscp(&aux)", "__rdpmc(0)"})
    EXPECT_REFUSED("#include <x86intrin.h>\n" + kSignature + " { unsigned aux; C[0] = " + clock + "; }\n",
                   forbidden, "(reads clocks or counters, or changes process state: rd");
  // stdatomic.h expands to the atomic builtins, which pass; a process-wide clock does not.
  EXPECT_PASSES("#include <stdatomic.h>\n" + kSignature +
                " {\n  atomic_int rows = 0;\n  atomic_fetch_add(&rows, 1);\n"
                "  atomic_thread_fence(memory_order_seq_cst);\n  atomic_signal_fence(memory_order_acquire);\n"
                "  __atomic_thread_fence(__ATOMIC_SEQ_CST);\n  __sync_synchronize();\n"
                "  C[0] = atomic_load(&rows) + A[0] * B[0] + m + n + k;\n}\n", kOpenMp);
  // Integer absolute values are arithmetic like fabs; only their calls, never their address.
  EXPECT_PASSES("#include <stdlib.h>\n" + kSignature +
                " { C[0] = abs(m - n) + labs(k) + llabs(-1LL); }\n");
  EXPECT_REFUSED("#include <stdlib.h>\n" + kSignature + " { int (*f)(int) = abs; C[0] = f(m); }\n",
                 forbidden, "takes the address of abs at line 2");
  EXPECT_REFUSED("#include <stdlib.h>\n" + kSignature + " { div_t q = div(m, 2); C[0] = q.quot; }\n",
                 forbidden, "call to div at line 2");
}

TEST(AstRules, Builtins) {
  EXPECT_REFUSED(kSignature + " { double *f = __builtin_frame_address(1); f[-2] = 0; }\n",
                 forbidden, "call to __builtin_frame_address at line 1 (a builtin that is not on");
  EXPECT_REFUSED(kSignature + " { (void)__builtin_return_address(0); }\n", forbidden,
                 "__builtin_return_address");
  EXPECT_REFUSED(kSignature + " { if (m < 0) __builtin_trap(); }\n", forbidden, "__builtin_trap");
  EXPECT_REFUSED(kSignature + " { C[0] = __builtin_readcyclecounter(); }\n", forbidden,
                 "__builtin_readcyclecounter");
  EXPECT_REFUSED(
      "#define CAT(a, b) a##b\n" + kSignature + " { (void)CAT(__builtin_, frame_address)(0); }\n",
      forbidden, "call to __builtin_frame_address at line 2");
  EXPECT_PASSES(
      kSignature +
      " {\n  const double *a = __builtin_assume_aligned(A, 64);\n"
      "  __builtin_prefetch(B, 0, 3);\n  if (__builtin_expect(m > 0, 1)) C[0] = a[0] * B[0];\n"
      "  C[1] = __builtin_fma(A[1], B[1], 0);\n}\n");
}

TEST(AstRules, AddressesOfLibraryFunctionsAreRefused) {
  EXPECT_REFUSED("#include <string.h>\ntypedef long (*call_t)(long);\n" + kSignature +
                     " { call_t s = (call_t)((char *)memcpy + 0x1234); (void)s; }\n",
                 forbidden, "at line 3");
  EXPECT_REFUSED(
      "#include <math.h>\n" + kSignature + " { double (*f)(double) = sqrt; C[0] = f(A[0]); }\n",
      forbidden, "takes the address of sqrt at line 2");
  EXPECT_REFUSED("#include <string.h>\n" + kSignature + " { void *p = &memset; (void)p; }\n",
                 forbidden, "takes the address of memset");
  EXPECT_PASSES("#include <string.h>\n" + kSignature + " { (memcpy)(C, A, sizeof *C); }\n");
}

TEST(AstRules, FunctionPointersFromDataAreRefused) {
  EXPECT_REFUSED(
      "typedef void (*fn_t)(void);\n" + kSignature + " { fn_t f = (fn_t)0x401000UL; (void)f; }\n",
      forbidden, "converts unsigned long to a function pointer at line 2");
  EXPECT_REFUSED("typedef void (*fn_t)(void);\n" + kSignature +
                     " { void *p = (void *)C; fn_t f = p; (void)f; }\n",
                 forbidden, "converts void * to a function pointer at line 2");
  EXPECT_REFUSED("typedef void (*fn_t)(void);\nstatic char code[16];\n" + kSignature +
                     " { fn_t f = (fn_t)(void *)code; (void)f; }\n",
                 forbidden, "to a function pointer at line 3");
  // Calls go to named functions only.
  EXPECT_REFUSED(
      "static void noop(void) { }\n" + kSignature + " { void (*f)(void) = noop; f(); }\n",
      forbidden, "call through a function pointer at line 2");
  EXPECT_PASSES("#include <stddef.h>\ntypedef void (*fn_t)(void);\nstatic void noop(void) { }\n" +
                kSignature +
                " { fn_t a = 0, b = NULL, c = noop, d = &noop; (void)a; (void)b;"
                " (void)c; (void)d; noop(); }\n");
}

TEST(AstRules, ComputedGotoIsRefused) {
  EXPECT_REFUSED(kSignature + " { void *l = &&done; goto *l; done:; }\n", forbidden,
                 "computed goto at line 1");
  EXPECT_PASSES(kSignature + " { if (m == 0) goto done; C[0] = 0; done:; }\n");
}

TEST(AstRules, ReservedAndLibraryNamesMustStayStatic) {
  EXPECT_REFUSED("void __helper(void) { }\n" + kMatmul, forbidden,
                 "defines __helper at line 1, a reserved name");
  EXPECT_REFUSED(
      "struct timespec { long s, ns; };\n"
      "int clock_gettime(int c, struct timespec *t) { (void)c; t->s = 0; return 0; }\n" +
          kMatmul,
      forbidden, "defines clock_gettime at line 2, a C library name");
  EXPECT_PASSES(
      "static void __helper(void) { }\nstatic int clock_gettime(void) { return 0; }\n"
      "void pack_panel(void) { }\n" +
      kMatmul);
}

TEST(AstRules, NestedFunctionsAreRefused) {
  EXPECT_REFUSED(kSignature + " {\n  int twice(int x) { return 2 * x; }\n  C[0] = twice(m);\n}\n",
                 forbidden, "nested function definition at line 2");
}

}  // namespace
}  // namespace hpcreward::source_checks_test
