// SourceChecks end to end: honest candidates pass (plain C, OpenMP, AVX-512 intrinsics),
// the ABI is checked, parser trouble is a verdict, and nothing is ever compiled or run.
#include "bench_node/source_checks/source_checks.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "bench_node/process/work_dir.hpp"
#include "check_support.hpp"

namespace hpcreward::source_checks_test {
namespace {

const std::string kAvxKernel =
    "// AVX-512 with OpenMP, blocked\n"
    "#include <immintrin.h>\n#include <stdlib.h>\n#include <string.h>\n#include <omp.h>\n"
    "#define BLOCK 64\n"
    "static inline void row(int n, double a, const double *restrict b, double *restrict c);\n" +
    kSignature +
    " {\n"
    "  memset(C, 0, sizeof(double) * (size_t)m * n);\n"
    "  #pragma omp parallel for schedule(static)\n"
    "  for (int i = 0; i < m; ++i)\n"
    "    for (int p0 = 0; p0 < k; p0 += BLOCK)\n"
    "      for (int p = p0; p < p0 + BLOCK && p < k; ++p) row(n, A[i * k + p], B + p * n, C + i * "
    "n);\n"
    "}\n"
    "static inline void row(int n, double a, const double *restrict b, double *restrict c) {\n"
    "  const __m512d va = _mm512_set1_pd(a);\n  int j = 0;\n"
    "  #pragma GCC unroll 4\n"
    "  for (; j + 8 <= n; j += 8) {\n"
    "    _mm_prefetch((const char *)(b + j + 64), _MM_HINT_T0);\n"
    "    _mm512_storeu_pd(c + j, _mm512_fmadd_pd(va, _mm512_loadu_pd(b + j), _mm512_loadu_pd(c + "
    "j)));\n"
    "  }\n"
    "  if (j < n) {\n"
    "    const __mmask8 mask = (__mmask8)((1u << (n - j)) - 1);\n"
    "    _mm512_mask_storeu_pd(c + j, mask, _mm512_fmadd_pd(va, _mm512_maskz_loadu_pd(mask, b + j),"
    " _mm512_maskz_loadu_pd(mask, c + j)));\n"
    "  }\n"
    "}\n";

TEST(SourceChecks, HonestCandidatesPass) {
  EXPECT_PASSES(kMatmul);
  EXPECT_PASSES(kMatmul, std::vector<std::string>{"-O0"});
  EXPECT_PASSES("#include <omp.h>\n" + kSignature +
                    " {\n  #pragma omp parallel for collapse(2)\n  for (int i = 0; i < m; ++i)\n"
                    "    for (int j = 0; j < n; ++j) {\n      double s = 0;\n"
                    "      #pragma omp simd reduction(+ : s)\n"
                    "      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];\n"
                    "      C[i * n + j] = s;\n    }\n}\n",
                kOpenMp);
  EXPECT_PASSES(kAvxKernel, kAvx512);
  EXPECT_PASSES(
      "#include <stdbool.h>\n#include <stdint.h>\n#include <stddef.h>\n#include <float.h>\n"
      "#include <limits.h>\n#include <stdalign.h>\n#include <emmintrin.h>\n"
      "#ifdef __AVX512F__\n#define WIDTH 8\n#else\n#define WIDTH 2\n#endif\n"
      "static alignas(64) double pad[WIDTH];\n"
      "void matmul(int m, int n, int k, const double *restrict A, const double *restrict B,"
      " double *restrict C)" +
      kBody);
  EXPECT_PASSES(
      "void matmul(int m, int n, int k, const float *A, const float *B, float *C) {"
      " (void)m; (void)n; (void)k; C[0] = A[0] * B[0]; }\n",
      kO3, "sgemm-256");
}

TEST(SourceChecks, TheEntryPointMustMatchTheAbi) {
  EXPECT_REFUSED(
      "void mat_mul(int m) { (void)m; }\n", format_error,
      "no definition of matmul (expected void matmul(int m, int n, int k, const double *A");
  EXPECT_REFUSED("void matmul(int m, int n, int k, const double *A, const double *B, double *C);\n",
                 format_error, "no definition of matmul");
  EXPECT_REFUSED("static " + kMatmul, format_error, "matmul at line 1 is static");
  EXPECT_REFUSED("inline " + kMatmul, format_error, "inline definition");
  EXPECT_REFUSED(
      "void matmul(int m, int n, int k, const float *A, const float *B, float *C) { }\n",
      format_error,
      "has the wrong signature (expected void matmul(int m, int n, int k, const double *A");
  EXPECT_REFUSED(kMatmul, format_error, "const float *A", kO3, "sgemm-256");
  EXPECT_REFUSED(
      "void matmul(long m, long n, long k, const double *A, const double *B, double *C) { }\n",
      format_error, "wrong signature");
  EXPECT_REFUSED(
      "int matmul(int m, int n, int k, const double *A, const double *B, double *C) { return 0; "
      "}\n",
      format_error, "wrong signature");
  // Qualifiers and typedefs do not matter.
  EXPECT_PASSES(
      "typedef double T;\nvoid matmul(const int m, const int n, const int k, T *A, T *B,"
      " T *restrict C) { (void)m; (void)n; (void)k; C[0] = A[0] * B[0]; }\n");
}

TEST(SourceChecks, ABatchedProblemsEntryPointTakesTheBatchFirst) {
  BenchTask batched = task("void matmul(int batch, int m, int n, int k, const double *A, const double *B, double *C)"
                           " { (void)batch; (void)m; (void)n; (void)k; C[0] = A[0] * B[0]; }\n");
  batched.problem = *load_problem_catalog("gemm-kinds").find("dgemm-batched-8x128");
  const Verdict honest = checks().check_source(batched);
  EXPECT_TRUE(honest.ok()) << honest.reason;
  batched.source = kMatmul;
  const Verdict unbatched = checks().check_source(batched);
  EXPECT_EQ(unbatched.status, Status::format_error);
  EXPECT_NE(unbatched.reason.find("(expected void matmul(int batch, int m, int n, int k, const double *A"),
            std::string::npos)
      << unbatched.reason;
  EXPECT_REFUSED("void matmul(int batch, int m, int n, int k, const double *A, const double *B, double *C) { }\n",
                 format_error, "wrong signature");
}

TEST(SourceChecks, SyntaxErrorsAreLeftToTheCompiler) {
  EXPECT_PASSES(kSignature + " { C[0] = A[0] * B[0] }\n");  // missing ;
  EXPECT_PASSES(kSignature + " { undefined_type x; }\n");
  // ...but a refusal still wins over them.
  EXPECT_REFUSED(
      kSignature + " { C[0] = A[0] * B[0] } int f(void) { __asm__(\"nop\"); return 0; }\n",
      forbidden, "inline assembly");
}

TEST(SourceChecks, CodeOnlyGccAcceptsNeverRuns) {
  // clang gives up on the rest of the file after 256 nested braces; gcc compiles it all.
  const std::string deep = std::string(300, '{') + std::string(300, '}');
  const BenchTask hidden =
      task("static void f(void) " + deep + "\nint fork(void);\n" + kSignature + " { fork(); }\n");
  ASSERT_TRUE(checks().check_source(hidden).ok());  // what clang read is clean: gcc decides
  const Verdict verdict = checks().check_object(hidden, "cand.so");  // gcc compiled it
  EXPECT_EQ(verdict.status, Status::compile_error);
  EXPECT_NE(verdict.reason.find("gcc compiled code that the checker's C parser (clang) rejects, "
                                "so it went unchecked (line 1: bracket nesting level exceeded"),
            std::string::npos)
      << verdict.reason;
  // A source both accept, or one gcc rejects too, is not held back.
  const BenchTask clean = task(kMatmul);
  EXPECT_TRUE(checks().check_source(clean).ok());
  EXPECT_TRUE(checks().check_object(clean, "cand.so").ok());
}

TEST(SourceChecks, AFunctionCalledBeforeItsDeclarationIsRefusedWithWhatToDeclare) {
  // gcc 12's -std=gnu11 only warns (an implicit declaration, then conflicting types); clang
  // refuses it, and C11 has no implicit declarations: the C prompt's rules say to declare first.
  const std::string helper = "void add_row(int n, double a, const double *b, double *c) {\n"
                             "  for (int j = 0; j < n; ++j) c[j] += a * b[j];\n}\n";
  const std::string body = " {\n  for (int i = 0; i < m * n; ++i) C[i] = 0;\n"
                           "  for (int i = 0; i < m; ++i)\n    for (int p = 0; p < k; ++p)\n"
                           "      add_row(n, A[i * k + p], B + p * n, C + i * n);\n}\n";
  const BenchTask undeclared = task(kSignature + body + helper);
  ASSERT_TRUE(checks().check_source(undeclared).ok());  // gcc decides whether it compiles
  const Verdict verdict = checks().check_object(undeclared, "cand.so");
  EXPECT_EQ(verdict.status, Status::compile_error);
  EXPECT_NE(verdict.reason.find("'add_row'"), std::string::npos) << verdict.reason;
  EXPECT_NE(verdict.reason.find("declare every function before its first call"), std::string::npos)
      << verdict.reason;
  // Declared first, as the prompt asks: it passes.
  const BenchTask declared =
      task("void add_row(int n, double a, const double *b, double *c);\n" + kSignature + body + helper);
  EXPECT_TRUE(checks().check_source(declared).ok());
  EXPECT_TRUE(checks().check_object(declared, "cand.so").ok());
}

TEST(SourceChecks, MacroBombsCostTheParserNotTheCaller) {
  SourceCheckOptions options;
  options.parse_timeout_s = 2;
  SourceChecks limited(options);
  std::string source = "#define A0 x+x\n";  // A29 expands to 2^30 tokens
  for (int i = 1; i < 30; ++i)
    source += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + "+A" +
              std::to_string(i - 1) + "\n";
  source += kSignature + " { double x = 1; C[0] = A29; }\n";
  const auto start = std::chrono::steady_clock::now();
  const Verdict verdict = limited.check_source(task(source));
  EXPECT_EQ(verdict.status, Status::compile_error) << verdict.reason;
  EXPECT_NE(verdict.reason.find("the checker's C parser ran"), std::string::npos) << verdict.reason;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(SourceChecks, ConditionsGccAndTheCheckerReadDifferentlyAreRefused) {
  EXPECT_REFUSED(
      "#ifndef __clang__\nint fork(void);\n#define WORK fork()\n#else\n#define WORK 0\n#endif\n" +
          kSignature + " { (void)WORK; }\n",
      forbidden, "a condition at line 1 depends on __clang__");
}

TEST(SourceChecks, PreprocessorRefusalsComeFirstAndNameTheLine) {
  EXPECT_REFUSED("#include \"/etc/passwd\"\n" + kSignature + " { system(\"x\"); }\n", forbidden,
                 "#include \"/etc/passwd\" at line 1: quoted includes are refused");
  EXPECT_REFUSED("#pragma GCC optimize(\"O3\")\n" + kMatmul, forbidden,
                 "#pragma GCC optimize at line 1", std::vector<std::string>{"-O0"});
}

TEST(SourceChecks, TextWithANulByteIsAFormatError) {
  EXPECT_REFUSED(kMatmul + std::string(1, '\0') + "x", format_error, "NUL byte");
}

TEST(SourceChecks, SeveralFindingsAreCounted) {
  const Verdict verdict =
      check("#include <stdlib.h>\n" + kSignature + " { system(\"x\"); getenv(\"x\"); system(\"y\"); }\n");
  EXPECT_EQ(verdict.status, Status::forbidden);
  EXPECT_NE(verdict.reason.find("call to system at line 2 (process control) (+2 more)"),
            std::string::npos)
      << verdict.reason;
}

// Under -fopenmp libclang hides a parallel region's statements; the serial view shows them.
// Before it was audited, `__asm__` inside `#pragma omp parallel { }` scored ok (2026-11-24).
TEST(SourceChecks, WhatAParallelRegionHoldsIsAudited) {
  const std::string region = "#include <omp.h>\n#include <stdlib.h>\n" + kSignature +
                             " {\n  #pragma omp parallel\n  {\n    if (omp_get_thread_num() == 99) BODY;\n  }\n}\n";
  auto with = [&](const std::string &body) {
    std::string source = region;
    return source.replace(source.find("BODY"), 4, body);
  };
  EXPECT_REFUSED(with("__asm__ volatile(\"nop\")"), forbidden, "inline assembly at line 6", kOpenMp);
  EXPECT_REFUSED(with("system(\"true\")"), forbidden, "call to system at line 6", kOpenMp);
  // Outside a region both views report the call: it counts once.
  const Verdict once = check("#include <stdlib.h>\n" + kSignature + " { exit(0); }\n", kOpenMp);
  EXPECT_EQ(once.reason.find("more"), std::string::npos) << once.reason;
  EXPECT_PASSES(with("C[0] = omp_get_num_threads()"), kOpenMp);
}

TEST(SourceChecks, ThePrecompiledPreambleChangesNoVerdict) {
  SourceCheckOptions none;
  none.preamble_cache_entries = 0;
  SourceChecks uncached(none);
  const std::vector<std::string> sources = {
      kAvxKernel,
      kAvxKernel + "static void leak(void) { (void)__rdtsc(); }\n",
      kAvxKernel + "int fork(void);\nstatic void spawn(void) { fork(); }\n",
      "#include <immintrin.h>\n" + kSignature +
          " { __m512d x = _mm512_setzero_pd(); (void)x; exit(1); }\n",
      "#include <immintrin.h>\n#include <stdlib.h>\n" + kSignature + " { exit(1); }\n",
  };
  for (const std::string &source : sources) {
    const Verdict first = checks().check_source(task(source, kAvx512));   // builds the PCH
    const Verdict second = checks().check_source(task(source, kAvx512));  // loads it
    const Verdict plain = uncached.check_source(task(source, kAvx512));
    EXPECT_EQ(first.status, plain.status) << source;
    EXPECT_EQ(first.reason, plain.reason);
    EXPECT_EQ(second.status, plain.status);
    EXPECT_EQ(second.reason, plain.reason);
  }
}

TEST(SourceChecks, ACachedPreambleMakesTheParseQuick) {
  (void)check(kAvxKernel, kAvx512);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(check(kAvxKernel, kAvx512).ok());
  // Typically ~10 ms; the bound only catches a parse of <immintrin.h> every time.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
}

TEST(SourceChecks, NothingIsCompiledOrRun) {
  const std::filesystem::path sentinel =
      std::filesystem::temp_directory_path() / "hpcreward-source-checks-sentinel";
  std::filesystem::remove(sentinel);
  EXPECT_REFUSED(
      "#include <stdlib.h>\n__attribute__((constructor)) static void at_load(void) {"
      " system(\"touch " +
          sentinel.string() + "\"); }\n" + kMatmul,
      forbidden, "attribute constructor at line 2");
  EXPECT_PASSES("static int touched;\n" + kSignature + " { touched = 1; C[0] = A[0] * B[0]; }\n");
  EXPECT_FALSE(std::filesystem::exists(sentinel));
}

TEST(SourceChecks, WorkRootIsPrivateRemovedAndStaleOnesCleared) {
  // Its own TMPDIR, so that other checks (tests running alongside) can't be mistaken for it.
  WorkDir tmp(std::filesystem::temp_directory_path(), "hpcreward-source-checks-test");
  const char *saved = std::getenv("TMPDIR");
  const std::string previous = saved != nullptr ? saved : "";
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  // What a process killed before its destructors ran leaves behind, and a live one's.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  const auto stale = tmp.path() / ("hpcreward-source-checks-" + std::to_string(gone) + "-0");
  const auto live = tmp.path() / ("hpcreward-source-checks-" + std::to_string(::getppid()) + "-0");
  std::filesystem::create_directories(stale / "include");
  std::filesystem::create_directories(live);
  std::filesystem::path root;
  {
    SourceChecks own;
    EXPECT_FALSE(std::filesystem::exists(stale));
    EXPECT_TRUE(std::filesystem::exists(live));
    std::filesystem::remove(live);
    (void)own.check_source(task(kAvxKernel, kAvx512));
    for (const auto &entry : std::filesystem::directory_iterator(tmp.path())) root = entry.path();
    ASSERT_FALSE(root.empty());
    EXPECT_EQ(std::filesystem::status(root).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_all);
    EXPECT_TRUE(std::filesystem::exists(root / "include" / "omp.h"));
  }
  EXPECT_FALSE(std::filesystem::exists(root));
  if (saved != nullptr)
    ::setenv("TMPDIR", previous.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

}  // namespace
}  // namespace hpcreward::source_checks_test
