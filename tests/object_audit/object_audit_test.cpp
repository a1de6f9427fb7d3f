// The object audit on candidates compiled by the real gcc with the rank's command line
// (-std=gnu11 -shared -fPIC <flags> -Wl,-z,defs ... -lm). -z defs makes an import of a
// symbol that no linked library defines a link error, so the forbidden imports here are
// of functions libc really has, or declared weak (which -z defs lets through and the
// runner's process, with OpenBLAS loaded, would resolve).
#include "bench_node/object_audit/object_audit.hpp"

#include <algorithm>
#include <variant>

#include <fstream>

#include <gtest/gtest.h>

#include "bench_node/object_audit/elf_object.hpp"
#include "techniques/simd_clones.hpp"
#include "tests/object_audit/audit_support.hpp"

namespace hpcreward::testing {
namespace {

const auto *const kCleanUp = ::testing::AddGlobalTestEnvironment(new RemoveTestRoot);

struct Case {
  const char *name;
  std::vector<std::string> flags;
  const char *source;
  const char *expected;  // a fragment of the reason (forbidden cases)
};

std::ostream &operator<<(std::ostream &out, const Case &c) { return out << c.name; }
std::string case_name(const ::testing::TestParamInfo<Case> &info) { return info.param.name; }

#define SIGNATURE "void matmul(int m, int n, int k, const double *A, const double *B, double *C)"

// --- honest candidates pass -------------------------------------------------------------

const Case kHonest[] = {
    {"NaiveO0", {"-O0"},
     SIGNATURE "{\n"
               "  for (int i = 0; i < m; i++)\n"
               "    for (int j = 0; j < n; j++) {\n"
               "      double s = 0;\n"
               "      for (int p = 0; p < k; p++) s += A[i * k + p] * B[p * n + j];\n"
               "      C[i * n + j] = s;\n"
               "    }\n"
               "}\n",
     ""},
    {"MemoryAndMathO3", {"-O3"},
     "#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n"
     "static void transpose(int r, int c, const double *X, double *T) {\n"
     "  for (int i = 0; i < r; i++) for (int j = 0; j < c; j++) T[j * r + i] = X[i * c + j];\n"
     "}\n" SIGNATURE "{\n"
     "  double *Bt = malloc(sizeof(double) * (size_t)k * n);\n"
     "  double *row = calloc((size_t)n, sizeof(double));\n"
     "  void *aligned = aligned_alloc(64, 64 * ((size_t)n * 8 / 64 + 1));\n"
     "  void *other = 0;\n"
     "  if (posix_memalign(&other, 64, 256) != 0) other = 0;\n"
     "  transpose(k, n, B, Bt);\n"
     "  for (int i = 0; i < m; i++) {\n"
     "    memset(row, 0, sizeof(double) * n);\n"
     "    for (int j = 0; j < n; j++) {\n"
     "      double s = 0;\n"
     "      for (int p = 0; p < k; p++) s = fma(A[i * k + p], Bt[j * k + p], s);\n"
     "      row[j] = s + 0 * sqrt(fabs(s)) + 0 * expf((float)s);\n"
     "    }\n"
     "    memcpy(C + (size_t)i * n, row, sizeof(double) * n);\n"
     "  }\n"
     "  row = realloc(row, 16);\n"
     "  free(aligned); free(other); free(row); free(Bt);\n"
     "}\n",
     ""},
    {"OpenMp", {"-O3", "-fopenmp"},
     "#include <omp.h>\n"
     "static double scratch[8];\n#pragma omp threadprivate(scratch)\n" SIGNATURE "{\n"
     "  double total = 0; long calls = 0;\n"
     "  #pragma omp parallel for collapse(2) schedule(dynamic) reduction(+:total)\n"
     "  for (int i = 0; i < m; i++)\n"
     "    for (int j = 0; j < n; j++) {\n"
     "      double s = 0;\n"
     "      for (int p = 0; p < k; p++) s += A[i * k + p] * B[p * n + j];\n"
     "      C[i * n + j] = s; total += s;\n"
     "    }\n"
     "  #pragma omp parallel\n"
     "  {\n"
     "    scratch[0] = omp_get_thread_num() + omp_get_num_threads();\n"
     "    #pragma omp critical\n"
     "    { total += scratch[0]; }\n"
     "    #pragma omp atomic\n"
     "    calls += 1;\n"
     "    #pragma omp barrier\n"
     "    #pragma omp single\n"
     "    {\n"
     "      #pragma omp task\n"
     "      { total += 0; }\n"
     "      #pragma omp taskwait\n"
     "    }\n"
     "    #pragma omp for schedule(guided) nowait\n"
     "    for (int i = 0; i < m; i++) C[i] += 0;\n"
     "    #pragma omp sections\n"
     "    {\n"
     "      #pragma omp section\n"
     "      { C[0] += 0; }\n"
     "      #pragma omp section\n"
     "      { C[1] += 0; }\n"
     "    }\n"
     "  }\n"
     "  double largest = 0;\n"
     "  #pragma omp parallel for reduction(max:largest) num_threads(2)\n"
     "  for (int i = 0; i < m * n; i++) largest = largest > C[i] ? largest : C[i];\n"
     "  C[0] += 0 * (total + largest + calls);\n"
     "}\n",
     ""},
    {"Avx512Intrinsics", {"-O3", "-mavx512f"},
     "#include <immintrin.h>\n" SIGNATURE "{\n"
     "  for (int i = 0; i < m; i++) {\n"
     "    int j = 0;\n"
     "    for (; j + 8 <= n; j += 8) {\n"
     "      __m512d acc = _mm512_setzero_pd();\n"
     "      for (int p = 0; p < k; p++)\n"
     "        acc = _mm512_fmadd_pd(_mm512_set1_pd(A[i * k + p]),\n"
     "                              _mm512_loadu_pd(B + p * n + j), acc);\n"
     "      _mm512_storeu_pd(C + i * n + j, acc);\n"
     "    }\n"
     "    for (; j < n; j++) {\n"
     "      double s = 0;\n"
     "      for (int p = 0; p < k; p++) s += A[i * k + p] * B[p * n + j];\n"
     "      C[i * n + j] = s;\n"
     "    }\n"
     "  }\n"
     "}\n",
     ""},
    {"NativeOpenMpBlocked", {"-O3", "-march=native", "-fopenmp"},
     "#include <stdlib.h>\n#include <string.h>\n#define BS 64\n" SIGNATURE "{\n"
     "  memset(C, 0, sizeof(double) * (size_t)m * n);\n"
     "  #pragma omp parallel for schedule(static)\n"
     "  for (int ii = 0; ii < m; ii += BS)\n"
     "    for (int pp = 0; pp < k; pp += BS)\n"
     "      for (int jj = 0; jj < n; jj += BS)\n"
     "        for (int i = ii; i < ii + BS && i < m; i++)\n"
     "          for (int p = pp; p < pp + BS && p < k; p++) {\n"
     "            const double a = A[i * k + p];\n"
     "            const int end = jj + BS < n ? jj + BS : n;\n"
     "            #pragma omp simd\n"
     "            for (int j = jj; j < end; j++) C[i * n + j] += a * B[p * n + j];\n"
     "          }\n"
     "}\n",
     ""},
    {"HardenedFloat", {"-O2", "-fstack-protector-all"},
     "#define _FORTIFY_SOURCE 2\n#include <math.h>\n#include <string.h>\n"
     "void matmul(int m, int n, int k, const float *A, const float *B, float *C) {\n"
     "  float buffer[64];\n"
     "  for (int i = 0; i < m; i++)\n"
     "    for (int j = 0; j < n; j++) {\n"
     "      float s = 0;\n"
     "      for (int p = 0; p < k; p++) s = fmaf(A[i * k + p], B[p * n + j], s);\n"
     "      C[i * n + j] = s + 0 * sqrtf(fabsf(s));\n"
     "    }\n"
     "  memcpy(buffer, C, sizeof(float) * (size_t)(n < 64 ? n : 64));\n"
     "  C[0] += 0 * buffer[0];\n"
     "}\n",
     ""},
    {"VectorMath", {"-O3", "-march=native", "-fopenmp"},
     "__attribute__((simd(\"notinbranch\"), const)) double exp(double);\n" SIGNATURE "{\n"
     "  #pragma omp simd\n"
     "  for (int i = 0; i < m; i++) C[i] = exp(A[i]) * 0 + B[i] * k + n;\n"
     "}\n",
     ""},
    {"ThreadLocalAndHelpers", {"-O3", "-fopenmp"},
     "static _Thread_local int calls;\n"
     "double dot_helper(const double *x, const double *y, int len, int stride) {\n"
     "  double s = 0; for (int p = 0; p < len; p++) s += x[p] * y[p * stride]; return s;\n"
     "}\n"
     "int matmul_calls;\n" SIGNATURE "{\n"
     "  #pragma omp parallel for\n"
     "  for (int i = 0; i < m; i++)\n"
     "    for (int j = 0; j < n; j++) C[i * n + j] = dot_helper(A + i * k, B + j, k, n);\n"
     "  calls++; matmul_calls = calls;\n"
     "}\n",
     ""},
    {"DeclareSimdHelper", {"-O3", "-fopenmp"},  // gcc exports _ZGVbN2vv_scaled ... _ZGVeN8vv_scaled
     "#pragma omp declare simd notinbranch\n"
     "double scaled(double a, double b) { return a * b; }\n" SIGNATURE "{\n"
     "  #pragma omp simd\n"
     "  for (int i = 0; i < m; i++) C[i] = scaled(A[i], B[i]) + k + n;\n"
     "}\n",
     ""},
    {"BlasNamedHelpers", {"-O3"},  // OpenBLAS exports these names; the executor never loads it
     "void dgemm_nn(int m, const double *A, double *C) { for (int i = 0; i < m; i++) C[i] = A[i]; }\n"
     "void cblas_dgemm(int m, const double *B, double *C) { for (int i = 0; i < m; i++) C[i] += B[i]; }\n"
     SIGNATURE "{ dgemm_nn(m, A, C); cblas_dgemm(m, B, C); C[0] += k + n; }\n",
     ""},
};

#define TRIVIAL_BODY "{ (void)m; (void)n; (void)k; (void)A; (void)B; (void)C; "

// Only matmul is exported (compiler.hpp's version script): a definition named after a library
// function, a harness symbol or a reserved name binds the object's own references and nothing
// of the executor's or the libraries', and a self-test main beside matmul is dropped.
const Case kLocalDefinitions[] = {
    {"DefinesClockGettime", {"-O3"},
     "#include <time.h>\n"
     "int clock_gettime(clockid_t id, struct timespec *t) {\n"
     "  (void)id; t->tv_sec = 0; t->tv_nsec = 0; return 0;\n"
     "}\n"
     SIGNATURE TRIVIAL_BODY "}\n",
     ""},
    {"DefinesMalloc", {"-O3"},
     "#include <stddef.h>\n"
     "static char arena[1 << 16];\n"
     "void *malloc(size_t size) { (void)size; return arena; }\n" SIGNATURE TRIVIAL_BODY "}\n",
     ""},
    {"VectorVariantOfALibcFunction", {"-O3"},  // named after malloc, which it does not define
     "void fake(void) __asm__(\"_ZGVbN2v_malloc\");\nvoid fake(void) {}\n" SIGNATURE TRIVIAL_BODY "}\n",
     ""},
    {"DefinesOmpGetWtime", {"-O3"},
     "double omp_get_wtime(void) { return 0; }\n" SIGNATURE TRIVIAL_BODY "}\n",
     ""},
    {"DefinesReservedName", {"-O3"},
     "int __libc_single_threaded_fake = 1;\n" SIGNATURE TRIVIAL_BODY "}\n",
     ""},
    {"DefinesMain", {"-O3"},
     "int main(void) { return 0; }\n" SIGNATURE TRIVIAL_BODY "}\n",
     ""},
    {"SelfTestMain", {"-O3"},
     "#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n" SIGNATURE TRIVIAL_BODY "}\n"
     "int main(void) {\n  FILE *f = fopen(\"log\", \"w\");\n  double a = rand(), b = 2, c;\n"
     "  clock_t t0 = clock();\n  matmul(1, 1, 1, &a, &b, &c);\n  fprintf(f, \"%f %ld\\n\", c, (long)(clock() - t0));\n"
     "  return system(\"true\");\n}\n",
     ""},
};

class LocalDefinition : public ::testing::TestWithParam<Case> {};

TEST_P(LocalDefinition, PassesAndExportsOnlyMatmul) {
  WorkDir directory(test_root(), "local");
  GccCompiler compiler(GccOptions{});
  const CompileOutcome compiled = compiler.compile({GetParam().source, GetParam().flags, directory.path()});
  ASSERT_TRUE(compiled.verdict.ok()) << compiled.verdict.reason;
  const auto read = read_elf_object(compiled.object);
  ASSERT_TRUE(std::holds_alternative<ElfObject>(read)) << std::get<std::string>(read);
  std::vector<std::string> exported;
  for (const ElfSymbol &symbol : std::get<ElfObject>(read).dynamic_symbols)
    if (symbol.exported()) exported.push_back(symbol.name);
  EXPECT_EQ(exported, std::vector<std::string>{"matmul"});
  BenchTask task;
  task.compiler_flags = GetParam().flags;
  const Verdict verdict = shared_audit().check_object(task, compiled.object);
  EXPECT_TRUE(verdict.ok()) << to_string(verdict.status) << ": " << verdict.reason;
}

class HonestCandidate : public ::testing::TestWithParam<Case> {};

TEST_P(HonestCandidate, Passes) {
  const Verdict verdict = audit_source(GetParam().source, GetParam().flags);
  EXPECT_TRUE(verdict.ok()) << to_string(verdict.status) << ": " << verdict.reason;
}

INSTANTIATE_TEST_SUITE_P(ObjectAudit, HonestCandidate, ::testing::ValuesIn(kHonest), case_name);
INSTANTIATE_TEST_SUITE_P(ObjectAudit, LocalDefinition, ::testing::ValuesIn(kLocalDefinitions), case_name);

// --- forbidden: the reason names the symbol and why -------------------------------------

const Case kForbidden[] = {
    // Imports.
    {"CblasDgemm", {"-O3"},
     "enum { RowMajor = 101, NoTrans = 111 };\n"
     "void cblas_dgemm(int, int, int, int, int, int, double, const double *, int,\n"
     "                 const double *, int, double, double *, int) __attribute__((weak));\n"
     SIGNATURE "{\n"
     "  cblas_dgemm(RowMajor, NoTrans, NoTrans, m, n, k, 1.0, A, k, B, n, 0.0, C, n);\n"
     "}\n",
     "the object calls cblas_dgemm (only libm, memory and OpenMP runtime functions are allowed"},
    {"FortranDgemm", {"-O3"},
     "void dgemm_(const char *, const char *, const int *, const int *, const int *,\n"
     "            const double *, const double *, const int *, const double *, const int *,\n"
     "            const double *, double *, const int *) __attribute__((weak));\n"
     SIGNATURE "{\n"
     "  const double one = 1, zero = 0;\n"
     "  dgemm_(\"N\", \"N\", &n, &m, &k, &one, B, &n, A, &k, &zero, C, &n);\n"
     "}\n",
     "calls dgemm_"},
    {"Dlsym", {"-O0"},
     "#include <dlfcn.h>\n" SIGNATURE "{\n"
     "  void (*f)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, \"cblas_dgemm\");\n"
     "  (void)m; (void)n; (void)k; (void)A; (void)B; (void)C; (void)f;\n"
     "}\n",
     "calls dlsym"},
    {"ClockGettime", {"-O3"},
     "#include <time.h>\n" SIGNATURE TRIVIAL_BODY
     "struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); C[0] = t.tv_nsec; }\n",
     "the object calls clock_gettime (only libm, memory and OpenMP runtime functions are allowed"},
    {"OmpGetWtime", {"-O3", "-fopenmp"},
     "#include <omp.h>\n" SIGNATURE TRIVIAL_BODY "C[0] = omp_get_wtime(); }\n",
     "calls omp_get_wtime (a clock"},
    {"PthreadCreate", {"-O3"},
     "#include <pthread.h>\n"
     "static void *spin(void *arg) { return arg; }\n" SIGNATURE TRIVIAL_BODY
     "pthread_t t; pthread_create(&t, 0, spin, 0); }\n",
     "calls pthread_create"},
    {"Fork", {"-O3"},
     "#include <unistd.h>\n" SIGNATURE TRIVIAL_BODY "if (fork() == 0) C[0] = 1; }\n",
     "calls fork"},
    {"System", {"-O3"},
     "#include <stdlib.h>\n" SIGNATURE TRIVIAL_BODY "C[0] = system(\"true\"); }\n",
     "calls system"},
    {"Write", {"-O3"},
     "#include <unistd.h>\n" SIGNATURE TRIVIAL_BODY "C[0] = write(1, \"x\", 1); }\n",
     "calls write"},
    {"Fopen", {"-O3"},
     "#include <stdio.h>\n" SIGNATURE TRIVIAL_BODY
     "FILE *f = fopen(\"/etc/passwd\", \"r\"); C[0] = f != 0; }\n",
     "calls fopen"},
    {"Syscall", {"-O3"},
     "#define _GNU_SOURCE\n#include <unistd.h>\n#include <sys/syscall.h>\n" SIGNATURE
     TRIVIAL_BODY "C[0] = syscall(SYS_getpid); }\n",
     "calls syscall"},
    // Code that runs when the object is loaded or unloaded.
    // (gcc drops an empty constructor at -O3: these ones do something.)
    {"Constructor", {"-O3"},
     "volatile int ready;\n"
     "__attribute__((constructor)) static void setup(void) { ready = 1; }\n" SIGNATURE
     TRIVIAL_BODY "}\n",
     "the object has a constructor (.init_array: 2 entries, the toolchain's own 1)"},
    {"Destructor", {"-O3"},
     "volatile int ready;\n"
     "__attribute__((destructor)) static void teardown(void) { ready = 0; }\n" SIGNATURE
     TRIVIAL_BODY "}\n",
     "the object has a destructor (.fini_array: 2 entries, the toolchain's own 1)"},
    {"InitArrayByHand", {"-O0"},
     "static void early(void) {}\n"
     "__attribute__((section(\".init_array\"), used)) static void (*entry)(void) = early;\n"
     SIGNATURE TRIVIAL_BODY "}\n",
     "has a constructor"},
    {"CtorsSection", {"-O0"},
     "static void early(void) {}\n"
     "__attribute__((section(\".ctors\"), used)) static void (*entry)(void) = early;\n"
     SIGNATURE TRIVIAL_BODY "}\n",
     "has a constructor"},
    {"FiniArrayByHand", {"-O0"},
     "static void late(void) {}\n"
     "__attribute__((section(\".fini_array\"), used)) static void (*entry)(void) = late;\n"
     SIGNATURE TRIVIAL_BODY "}\n",
     "has a destructor"},
    {"FrameDummyNamedConstructor", {"-O3"},
     "volatile int ready;\n"
     "__attribute__((constructor)) static void frame_dummy(void) { ready = 1; }\n" SIGNATURE
     TRIVIAL_BODY "}\n",
     "has a constructor"},
    {"CodeInInitSection", {"-O0"},
     "__attribute__((section(\".init\"))) static void sneak(void) {}\n"
     "void (*keep)(void) = sneak;\n" SIGNATURE TRIVIAL_BODY "}\n",
     "adds code to .init, which runs when it is loaded (.init: "},
    {"HiddenGmonStart", {"-O2"},  // crti.o's _init calls it when the object is loaded
     "volatile int ready;\n"
     "__attribute__((visibility(\"hidden\"))) void __gmon_start__(void) { ready = 1; }\n"
     SIGNATURE TRIVIAL_BODY "}\n",
     "the object defines __gmon_start__, which the toolchain's start-up code calls"},
    {"HiddenCxaFinalize", {"-O2"},  // crtbeginS.o calls it when the object is unloaded
     "volatile int ready;\n"
     "__attribute__((visibility(\"hidden\"))) void __cxa_finalize(void *d) {\n"
     "  (void)d; ready = 1;\n"
     "}\n"
     SIGNATURE TRIVIAL_BODY "}\n",
     "the object defines __cxa_finalize, which"},
    {"PriorityConstructor", {"-O2"},
     "volatile int ready;\n"
     "__attribute__((constructor(101))) static void early(void) { ready = 1; }\n" SIGNATURE
     TRIVIAL_BODY "}\n",
     "has a constructor"},
    {"GlobalIfunc", {"-O3"},
     "static void real(int m, int n, int k, const double *A, const double *B, double *C)\n"
     TRIVIAL_BODY "}\n"
     "static void *resolve(void) { return (void *)real; }\n"
     "void helper(int, int, int, const double *, const double *, double *)\n"
     "    __attribute__((ifunc(\"resolve\")));\n" SIGNATURE "{ helper(m, n, k, A, B, C); }\n",
     "the object defines helper as an ifunc"},
    {"LocalIfunc", {"-O0"},
     "static void real(int m, int n, int k, const double *A, const double *B, double *C)\n"
     TRIVIAL_BODY "}\n"
     "static void *resolve(void) { return (void *)real; }\n"
     "static void helper(int, int, int, const double *, const double *, double *)\n"
     "    __attribute__((ifunc(\"resolve\")));\n" SIGNATURE "{ helper(m, n, k, A, B, C); }\n",
     "as an ifunc"},
    {"TargetClones", {"-O3"},
     "__attribute__((target_clones(\"avx2\", \"default\")))\n" SIGNATURE TRIVIAL_BODY "}\n",
     "ifunc"},
    // Memory permissions.
    {"WritableExecutableSection", {"-O0"},
     "__attribute__((section(\".wx,\\\"awx\\\",@progbits#\"))) unsigned char code[16] = {0xc3};\n"
     SIGNATURE TRIVIAL_BODY "((void (*)(void))code)(); }\n",
     "the object has a writable and executable segment"},
    {"ExecutableStack", {"-O0"},
     "static void apply(void (*f)(int), int count) { for (int i = 0; i < count; i++) f(i); }\n"
     SIGNATURE "{\n"
     "  void inner(int i) { C[i] = A[i] * B[i] + k + n; }\n"
     "  apply(inner, m);\n"
     "}\n",
     "the object needs an executable stack"},
    // The entry point.
    {"MatmulIsData", {"-O3"}, "double matmul[16];\n", "matmul is not a function but a data object"},
    {"MatmulIsBytesInText", {"-O0"},
     "__attribute__((section(\".text\"))) const unsigned char matmul[] = {0xc3};\n",
     "matmul is not a function"},
    {"MatmulIsIfunc", {"-O3"},
     "static void real(int m, int n, int k, const double *A, const double *B, double *C)\n"
     TRIVIAL_BODY "}\n"
     "static void *resolve(void) { return (void *)real; }\n" SIGNATURE
     " __attribute__((ifunc(\"resolve\")));\n",
     "matmul is an ifunc"},
};

class ForbiddenCandidate : public ::testing::TestWithParam<Case> {};

TEST_P(ForbiddenCandidate, IsRefusedWithTheReason) {
  const Verdict verdict = audit_source(GetParam().source, GetParam().flags);
  EXPECT_EQ(verdict.status, Status::forbidden)
      << to_string(verdict.status) << ": " << verdict.reason;
  EXPECT_NE(verdict.reason.find(GetParam().expected), std::string::npos) << verdict.reason;
}

INSTANTIATE_TEST_SUITE_P(ObjectAudit, ForbiddenCandidate, ::testing::ValuesIn(kForbidden),
                         case_name);

// --- the entry point --------------------------------------------------------------------

// The technique step overwrites gcc's simd clones for wider ISAs than the flags' with int3
// (techniques/simd_clones.hpp), those the linker kept; their symbols stay, so the audit judges
// the object as before, whichever of the two runs first.
TEST(ObjectAudit, SimdClonesMadeUnreachableStillPass) {
  WorkDir directory(test_root(), "clones");
  GccCompiler compiler(GccOptions{});
  const std::vector<std::string> flags = {"-O3", "-fopenmp"};
  const CompileOutcome compiled = compiler.compile(
      {"#pragma omp declare simd notinbranch\n"
       "double scaled(double a, double b) { return a * b; }\n" SIGNATURE "{\n"
       "  #pragma omp simd\n"
       "  for (int i = 0; i < m; i++) C[i] = scaled(A[i], B[i]) + k + n;\n"
       "}\n",
       flags, directory.path()});
  ASSERT_TRUE(compiled.verdict.ok()) << compiled.verdict.reason;
  const techniques::DisabledClones disabled =
      techniques::disable_simd_clones_beyond(compiled.object, techniques::VectorIsa::sse2);
  ASSERT_TRUE(disabled.done) << disabled.error;
  // Each clone wider than SSE2 is gone (--gc-sections drops what matmul does not call) or
  // overwritten; the SSE2 one matmul calls stays.
  const auto read = read_elf_object(compiled.object);
  ASSERT_TRUE(std::holds_alternative<ElfObject>(read)) << std::get<std::string>(read);
  auto present = [&](const std::string &name) {
    const auto &symbols = std::get<ElfObject>(read).static_symbols;
    return std::any_of(symbols.begin(), symbols.end(), [&](const ElfSymbol &s) { return s.name == name && s.defined; });
  };
  EXPECT_TRUE(present("_ZGVbN2vv_scaled"));
  for (const std::string name : {"_ZGVcN4vv_scaled", "_ZGVdN4vv_scaled", "_ZGVeN8vv_scaled"})
    EXPECT_TRUE(!present(name) ||
                std::find(disabled.names.begin(), disabled.names.end(), name) != disabled.names.end())
        << name;
  BenchTask task;
  task.compiler_flags = flags;
  const Verdict verdict = shared_audit().check_object(task, compiled.object);
  EXPECT_TRUE(verdict.ok()) << to_string(verdict.status) << ": " << verdict.reason;
}

TEST(ObjectAudit, MissingMatmulIsFormatError) {
  for (const char *source : {
           "void mat_mul(int m) { (void)m; }\n",
           "static " SIGNATURE TRIVIAL_BODY "}\nvoid (*keep)(void) = (void (*)(void))matmul;\n",
           "__attribute__((visibility(\"hidden\"))) " SIGNATURE TRIVIAL_BODY "}\n",
       }) {
    const Verdict verdict = audit_source(source, {"-O3"});
    EXPECT_EQ(verdict.status, Status::format_error) << verdict.reason << "\n" << source;
    EXPECT_EQ(verdict.reason, "no matmul entry point (the object exports no function matmul)");
  }
}

// --- objects that can't be read ---------------------------------------------------------

TEST(ObjectAudit, UnreadableObjectIsCompileError) {
  WorkDir directory(test_root(), "unreadable");
  const std::filesystem::path text = directory.path() / "cand.so";
  std::ofstream(text) << "not an ELF file";
  BenchTask task;
  task.compiler_flags = {"-O3"};
  Verdict verdict = shared_audit().check_object(task, text);
  EXPECT_EQ(verdict.status, Status::compile_error);
  EXPECT_NE(verdict.reason.find("not an ELF file"), std::string::npos) << verdict.reason;

  verdict = shared_audit().check_object(task, directory.path() / "missing.so");
  EXPECT_EQ(verdict.status, Status::compile_error);
  EXPECT_NE(verdict.reason.find("cannot open it"), std::string::npos) << verdict.reason;
}

// The default options: the baselines go into a private directory of the audit's own in
// $TMPDIR, removed with it.
TEST(ObjectAudit, DefaultWorkRootIsRemoved) {
  WorkDir directory(test_root(), "default-root");
  GccCompiler compiler(GccOptions{});
  const CompileOutcome compiled =
      compiler.compile({SIGNATURE TRIVIAL_BODY "}\n", {"-O1"}, directory.path()});
  ASSERT_TRUE(compiled.verdict.ok()) << compiled.verdict.reason;
  BenchTask task;
  task.compiler_flags = {"-O1"};
  const std::string prefix = "hpcreward-audit-" + std::to_string(::getpid()) + "-";
  auto roots = [&] {
    int found = 0;
    const auto temp = std::filesystem::temp_directory_path();
    for (const auto &entry : std::filesystem::directory_iterator(temp))
      if (entry.path().filename().string().rfind(prefix, 0) == 0) ++found;
    return found;
  };
  {
    const std::unique_ptr<ObjectAudit> audit = c_object_audit();
    EXPECT_TRUE(audit->check_object(task, compiled.object).ok());
    EXPECT_EQ(roots(), 1);
  }
  EXPECT_EQ(roots(), 0);
}

}  // namespace
}  // namespace hpcreward::testing
