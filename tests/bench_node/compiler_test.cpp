#include "bench_node/checks/compiler.hpp"

#include <unistd.h>

#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "bench_node/rank/rank_info.hpp"
#include "bench_node/process/work_dir.hpp"
#include "common/messages_json.hpp"
#include "common/node_failure.hpp"

namespace hpcreward {
namespace {

TEST(Compiler, CommandLine) {
  const GccCompiler compiler(GccOptions{});
  const std::vector<std::string> args = compiler.arguments({"", {"-O3", "-fopenmp"}, "/tmp"});
  const std::vector<std::string> expected = {"-std=gnu11", "-shared", "-fPIC", "-O3", "-fopenmp",
                                             "-ffunction-sections", "-fdata-sections",
                                             "-Wl,--gc-sections,--version-script=cand.exports", "-Wl,-z,defs",
                                             "-o", "cand.so", "cand.c", "-lm"};
  EXPECT_EQ(args, expected);
}

TEST(Compiler, FirstErrorLine) {
  const std::string log =
      "cand.c: In function 'matmul':\n"
      "cand.c:3:12: error: expected ';' before 'C'\n"
      "    3 |   int i = 0\n";
  EXPECT_EQ(first_error_line(log), "cand.c:3:12: error: expected ';' before 'C'");
  EXPECT_EQ(first_error_line("\nld: something odd\n"), "ld: something odd");
  EXPECT_EQ(first_error_line("/usr/bin/ld: /tmp/cc.o: in function `matmul':\n"
                             "cand.c:(.text+0x9): undefined reference to `helper'\n"
                             "collect2: error: ld returned 1 exit status\n"),
            "cand.c:(.text+0x9): undefined reference to `helper'");
}

TEST(Compiler, FirstErrorLines) {
  const std::string log =
      "cand.c: In function 'matmul':\n"
      "cand.c:3:12: error: expected ';' before 'C'\n"
      "cand.c:5:3: error: 'q' undeclared (first use in this function)\n"
      "cand.c:5:3: note: each undeclared identifier is reported only once\n"
      "cand.c:5:3: error: 'q' undeclared (first use in this function)\n"
      "cand.c:9:1: error: expected declaration or statement at end of input\n"
      "cand.c:11:1: error: a fourth one\n";
  EXPECT_EQ(first_error_lines(log, 3),
            "cand.c:3:12: error: expected ';' before 'C'; cand.c:5:3: error: 'q' undeclared (first use in this "
            "function); cand.c:9:1: error: expected declaration or statement at end of input");
  EXPECT_EQ(first_error_lines(log, 1), first_error_line(log));
  EXPECT_EQ(first_error_lines("\nld: something odd\n", 3), "ld: something odd");
}

// What a stage's prompt offers compiles; an intrinsic beyond its flags is refused in the stage's
// terms, and so is an OpenMP runtime call where OpenMP is not linked.
TEST(Compiler, FailuresSaidInTheStagesTerms) {
  const std::filesystem::path root =
      std::filesystem::path(::testing::TempDir()) / ("hpcreward-compiler-isa-" + std::to_string(::getpid()));
  GccCompiler compiler(GccOptions{});
  auto compile = [&](const std::string &body, const std::vector<std::string> &flags, const char *header) {
    WorkDir directory(root, "isa");
    return compiler.compile({std::string("#include <") + header + ">\n"
                                 "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n" +
                                 body + "\n}\n",
                             flags, directory.path()});
  };
  const std::string avx2 = "  _mm256_storeu_pd(C, _mm256_add_pd(_mm256_loadu_pd(A), _mm256_loadu_pd(B)));";
  const CompileOutcome in_o3 = compile(avx2, {"-O3"}, "immintrin.h");
  EXPECT_EQ(in_o3.verdict.status, Status::constraint_violation) << in_o3.verdict.reason;
  EXPECT_NE(in_o3.verdict.reason.find("is AVX, which this stage does not compile for (-O3: x86-64's SSE2 baseline)"),
            std::string::npos)
      << in_o3.verdict.reason;
  EXPECT_TRUE(compile(avx2, {"-O3", "-mavx2", "-mfma"}, "immintrin.h").verdict.ok());
  const CompileOutcome sse3 =
      compile("  _mm_storeu_pd(C, _mm_hadd_pd(_mm_loadu_pd(A), _mm_loadu_pd(B)));", {"-O3", "-fopenmp"}, "pmmintrin.h");
  EXPECT_EQ(sse3.verdict.status, Status::constraint_violation) << sse3.verdict.reason;
  EXPECT_NE(sse3.verdict.reason.find("_mm_hadd_pd is SSE3"), std::string::npos) << sse3.verdict.reason;
  EXPECT_TRUE(compile("  _mm_storeu_pd(C, _mm_add_pd(_mm_loadu_pd(A), _mm_loadu_pd(B)));", {"-O3"}, "emmintrin.h")
                  .verdict.ok());
  const CompileOutcome omp = compile("  C[0] = omp_get_max_threads();", {"-O0"}, "omp.h");
  EXPECT_EQ(omp.verdict.status, Status::compile_error);
  EXPECT_NE(omp.verdict.reason.find("compiles without -fopenmp, so the OpenMP runtime is not linked and "
                                    "omp_get_max_threads is undefined"),
            std::string::npos)
      << omp.verdict.reason;
  EXPECT_TRUE(compile("  C[0] = omp_get_max_threads();", {"-O3", "-fopenmp"}, "omp.h").verdict.ok());
  // A C++ answer to a C problem is told so, with gcc's first error after it.
  WorkDir directory(root, "cxx");
  const CompileOutcome cxx = compiler.compile(
      {"#include <vector>\nextern \"C\" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
       "  std::vector<double> t(n);\n}\n",
       {"-O3"}, directory.path()});
  EXPECT_EQ(cxx.verdict.status, Status::compile_error);
  EXPECT_NE(cxx.verdict.reason.find("the answer is C++ (vector at line 1); this problem is C"),
            std::string::npos)
      << cxx.verdict.reason;
  EXPECT_NE(cxx.verdict.reason.find("gcc: cand.c:1:10: fatal error: vector: No such file"), std::string::npos)
      << cxx.verdict.reason;
  // A C answer that fails to build is not called C++, guarded extern "C" or a 64 KiB line included.
  WorkDir plain(root, "c");
  const CompileOutcome c = compiler.compile(
      {"#ifdef __cplusplus\nextern \"C\" {\n#endif\n" + std::string(64 << 10, ' ') +
           "\nvoid matmul(int m, int n, int k, const double *A, const double *B, double *C) { C[0] = ; }\n",
       {"-O3"}, plain.path()});
  EXPECT_EQ(c.verdict.status, Status::compile_error);
  EXPECT_EQ(c.verdict.reason.find("C++"), std::string::npos) << c.verdict.reason;
}

TEST(Compiler, CompilesAndFails) {
  const std::filesystem::path root =
      std::filesystem::path(::testing::TempDir()) / ("hpcreward-compiler-test-" + std::to_string(::getpid()));
  GccCompiler compiler(GccOptions{});
  {
    WorkDir directory(root, "ok");
    const CompileOutcome ok = compiler.compile(
        {"void matmul(int m,int n,int k,const double*A,const double*B,double*C){C[0]=A[0]*B[0]+m+n+k;}",
         {"-O2"}, directory.path()});
    EXPECT_TRUE(ok.verdict.ok()) << ok.verdict.reason;
    EXPECT_TRUE(std::filesystem::exists(ok.object));
    EXPECT_GT(ok.seconds, 0);
  }
  {
    WorkDir directory(root, "bad");
    const CompileOutcome bad = compiler.compile({"int x = ;", {}, directory.path()});
    EXPECT_EQ(bad.verdict.status, Status::compile_error);
    EXPECT_NE(bad.verdict.reason.find("error:"), std::string::npos) << bad.verdict.reason;
  }
  {
    WorkDir directory(root, "missing");
    GccCompiler nowhere(GccOptions{"no-such-compiler-anywhere"});
    EXPECT_EQ(nowhere.compile({"", {}, directory.path()}).verdict.status, Status::compile_error);
  }
  remove_tree(root);
}

TEST(Compiler, TimesOutAndKillsTheCompiler) {
  const std::filesystem::path root =
      std::filesystem::path(::testing::TempDir()) / ("hpcreward-compiler-test-t" + std::to_string(::getpid()));
  std::filesystem::create_directories(root);
  // A "compiler" that never finishes, and leaves a child behind too.
  const std::filesystem::path script = root / "slow-cc";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\nsleep 100 &\nsleep 100\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  GccCompiler compiler(GccOptions{script.string(), 1.0});
  {
    WorkDir directory(root, "slow");
    const CompileOutcome slow = compiler.compile({"int x;", {}, directory.path()});
    EXPECT_EQ(slow.verdict.status, Status::compile_error);
    EXPECT_EQ(slow.verdict.reason, "compiler timed out after 1 s");
    EXPECT_TRUE(node_failure::decided_by_node(slow.verdict.reason)) << "the repeat cache must measure it again";
    EXPECT_LT(slow.seconds, 5);
  }
  remove_tree(root);
}

TEST(RankInfo, DescribesThisRank) {
  const RankInfo info = collect_rank_info(3, "gcc");
  EXPECT_EQ(info.rank, 3);
  EXPECT_FALSE(info.host.empty());
  EXPECT_GE(info.cores, 1);
  EXPECT_NE(info.compiler_version.find("gcc"), std::string::npos) << info.compiler_version;
  EXPECT_NE(info.blas_version.find("OpenBLAS"), std::string::npos) << info.blas_version;
  EXPECT_EQ(info.avx512, cpu_supports_avx512());
}

TEST(RankInfo, Avx512FollowsTheCpuUnlessTurnedOff) {
  // The kernel's view of the CPU: /proc/cpuinfo lists avx512f only when it is usable.
  std::ifstream cpuinfo("/proc/cpuinfo");
  const std::string text((std::istreambuf_iterator<char>(cpuinfo)), std::istreambuf_iterator<char>());
  EXPECT_EQ(cpu_supports_avx512(), text.find(" avx512f") != std::string::npos);
  const RankInfo turned_off = collect_rank_info(1, "gcc", /*no_avx512=*/true);
  EXPECT_FALSE(turned_off.avx512);
  // The hello is this struct's JSON (bench_main.cpp): the field travels.
  EXPECT_EQ(nlohmann::json(turned_off).at("avx512"), false);
  EXPECT_EQ(nlohmann::json(collect_rank_info(1, "gcc")).at("avx512"), cpu_supports_avx512());
}

}  // namespace
}  // namespace hpcreward
