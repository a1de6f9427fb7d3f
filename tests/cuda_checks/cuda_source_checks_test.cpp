// The CUDA source checks on text: no compiler is involved.
#include "bench_node/cuda/cuda_source_checks.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include <gtest/gtest.h>

#include "bench_node/cuda/cuda_include_policy.hpp"
#include "common/node_failure.hpp"
#include "common/problem_catalog.hpp"

namespace hpcreward {
namespace {

constexpr const char *kEntry =
    "extern \"C\" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {}\n";

Verdict check(const std::string &source) {
  BenchTask task;
  task.problem = *find_problem("cuda-dgemm-1024");
  task.source = source;
  CudaSourceChecks checks;
  return checks.check_source(task);
}

// The same in a stage that allows CuTe, on a rank with (or without) the headers.
Verdict check_in_cute_stage(const std::string &source, bool rank_has_cute = true) {
  BenchTask task;
  task.problem = *find_problem("cuda-dgemm-1024");
  task.stage = "cuda-cute";
  task.libraries = {"cute"};
  task.source = source;
  CudaSourceChecks checks(rank_has_cute);
  return checks.check_source(task);
}

void expect_refused(const std::string &source, const std::string &reason_part,
                    Status status = Status::forbidden) {
  const Verdict verdict = check(source);
  EXPECT_EQ(verdict.status, status) << source << "\n-> " << verdict.reason;
  EXPECT_NE(verdict.reason.find(reason_part), std::string::npos)
      << "reason '" << verdict.reason << "' lacks '" << reason_part << "'";
}

TEST(CudaSourceChecks, ATypicalKernelPasses) {
  const std::string source =
      "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <mma.h>\n"
      "#include <cuda/pipeline>\n#include <cuda/std/cstdint>\n"
      "#include <cooperative_groups.h>\n#include <cooperative_groups/memcpy_async.h>\n"
      "#include <algorithm>\n#include <cstdint>\n"
      "#define TILE 32\n#ifdef __CUDA_ARCH__\n#endif\n"
      "#pragma nv_diag_suppress 177\n"
      "constexpr int kBig = 1'024;\n"
      "template <int T> __global__ void __launch_bounds__(256) tiled(const double *A, double *C) {\n"
      "  __shared__ __align__(16) double s[TILE][TILE];\n"
      "  [[maybe_unused]] int x = 0;\n"
      "#pragma unroll 4\n"
      "  for (int i = 0; i < 4; ++i) s[0][i] = A[i];\n"
      "  _Pragma(\"unroll\") for (int i = 0; i < 4; ++i) C[i] = s[0][i];\n"
      "  asm volatile(\"cp.async.commit_group;\\n\" ::);\n"
      "}\n"
      "__device__ __attribute__((aligned(16))) double table[4];\n" +
      std::string(kEntry);
  const Verdict verdict = check(source);
  EXPECT_TRUE(verdict.ok()) << verdict.reason;
}

TEST(CudaSourceChecks, LibraryHeadersAreRefusedWithTheirReason) {
  expect_refused("#include <cublas_v2.h>\n" + std::string(kEntry), "cuBLAS");
  expect_refused("#include <cublasLt.h>\n" + std::string(kEntry), "cuBLAS");
  expect_refused("#include <thrust/device_vector.h>\n" + std::string(kEntry), "Thrust");
  expect_refused("#include <cub/cub.cuh>\n" + std::string(kEntry), "CUB");
  expect_refused("#include <cutlass/gemm/device/gemm.h>\n" + std::string(kEntry), "CUTLASS");
  expect_refused("#include <cute/tensor.hpp>\n" + std::string(kEntry), "CuTe");
  expect_refused("#include <cudnn.h>\n" + std::string(kEntry), "cuDNN");
  expect_refused("#include <curand_kernel.h>\n" + std::string(kEntry), "cuRAND");
  expect_refused("#include <cuda_profiler_api.h>\n" + std::string(kEntry), "profiler");
}

// A header does nothing by itself; what the host code calls is the object audit's to judge.
TEST(CudaSourceChecks, HostAndDriverHeadersPass) {
  for (const char *header : {"cuda.h", "unistd.h", "sys/mman.h", "dlfcn.h", "stdio.h", "cstdio", "iostream", "fstream",
                             "stdlib.h", "cstdlib", "thread", "mutex", "chrono", "cuda/std/chrono", "vector", "string",
                             "stdexcept", "cassert", "memory"}) {
    const Verdict verdict = check("#include <" + std::string(header) + ">\n" + std::string(kEntry));
    EXPECT_TRUE(verdict.ok()) << header << ": " << verdict.reason;
  }
  expect_refused("#include <cuda/std/__cccl/config.h>\n" + std::string(kEntry), "internal header");
}

TEST(CudaSourceChecks, OnlyAngleIncludesOfListedNames) {
  // Quoted names are judged like angled ones (nvcc alone resolves them, from the private compile
  // directory): published kernels write "cute/tensor.hpp".
  EXPECT_TRUE(check("#include \"cuda_runtime.h\"\n" + std::string(kEntry)).ok());
  EXPECT_TRUE(check_in_cute_stage("#include \"cute/tensor.hpp\"\n#include \"cutlass/cutlass.h\"\n" +
                                  std::string(kEntry)).ok());
  expect_refused("#include \"cublas_v2.h\"\n" + std::string(kEntry), "cuBLAS");
  expect_refused("#include \"/etc/passwd\"\n" + std::string(kEntry), "below the compiler's include directories");
  expect_refused("#include \"../cand.cu\"\n" + std::string(kEntry), "below the compiler's include directories");
  expect_refused("#define H <cuda_runtime.h>\n#include H\n" + std::string(kEntry), "computed #include");
  expect_refused("#include_next <cuda_runtime.h>\n" + std::string(kEntry), "#include_next");
  expect_refused("#include </etc/passwd>\n" + std::string(kEntry), "below the compiler's include directories");
  expect_refused("#include <cuda/std/../../../../etc/passwd>\n" + std::string(kEntry),
                 "below the compiler's include directories");
  // Splices, comments and digraphs cannot hide a directive from the lexer.
  expect_refused("#inc\\\nlude <cublas_v2.h>\n" + std::string(kEntry), "cuBLAS");
  expect_refused("/* x */ %: include <cublas_v2.h>\n" + std::string(kEntry), "cuBLAS");
  expect_refused("#if 0\n#include <cublas_v2.h>\n#endif\n" + std::string(kEntry), "cuBLAS");
}

TEST(CudaSourceChecks, MentionsInCommentsAndStringsAreHarmless) {
  const Verdict verdict = check("// #include <cublas_v2.h>\n/* #pragma GCC optimize(\"O0\") */\n"
                                "__device__ const char note[] = \"#include <cublas_v2.h> __managed__\";\n" +
                                std::string(kEntry));
  EXPECT_TRUE(verdict.ok()) << verdict.reason;
}

TEST(CudaSourceChecks, PragmasThatChangeCodeGenerationAreRefused) {
  expect_refused("#pragma GCC optimize(\"O0\")\n" + std::string(kEntry), "changes code generation");
  expect_refused("_Pragma(\"GCC optimize(\\\"O3\\\")\")\n" + std::string(kEntry), "changes code generation");
  expect_refused("#pragma GCC push_options\n" + std::string(kEntry), "changes code generation");
  expect_refused("#pragma omp parallel for\n" + std::string(kEntry), "OpenMP");
  expect_refused("#pragma nv_abi preserve_n_data(16)\n" + std::string(kEntry), "calling convention");
  expect_refused("#pragma clang loop unroll(full)\n" + std::string(kEntry), "not on the allow-list");
  expect_refused("#define P(x) _P##ragma(x)\n" + std::string(kEntry), "paste it into _Pragma");
}

TEST(CudaSourceChecks, LoadTimeAttributesAndManagedMemoryAreRefused) {
  expect_refused("__attribute__((constructor)) static void f() {}\n" + std::string(kEntry),
                 "attribute constructor at line 1 runs code when the object is loaded");
  expect_refused("[[gnu::destructor]] static void f() {}\n" + std::string(kEntry), "attribute destructor");
  expect_refused("[[using gnu: constructor]] static void f() {}\n" + std::string(kEntry), "attribute constructor");
  expect_refused("#define CTOR __attribute__((__constructor__(101)))\n" + std::string(kEntry),
                 "attribute constructor");
  expect_refused("struct S { S(); }; S s __attribute__((init_priority(101)));\n" + std::string(kEntry),
                 "attribute init_priority");
  expect_refused("__attribute__((section(\".init_array\"))) void *p;\n" + std::string(kEntry),
                 "symbols or sections");
  expect_refused("__managed__ double x;\n" + std::string(kEntry), "managed memory");
  expect_refused("__device__ __attribute__((managed)) double x;\n" + std::string(kEntry), "managed memory");
}

TEST(CudaSourceChecks, CompilerMacrosAndRawStringsAreRefused) {
  expect_refused("#define __CUDA_ARCH__ 900\n" + std::string(kEntry), "belong to the compiler");
  expect_refused("#undef __CUDACC__\n" + std::string(kEntry), "belong to the compiler");
  expect_refused("#define template typename\n" + std::string(kEntry), "redefines a keyword");
  expect_refused("const char *s = R\"(\n#include <cublas_v2.h>\n)\";\n" + std::string(kEntry),
                 "raw string literal");
  expect_refused("#line 1 \"x.cu\"\n" + std::string(kEntry), "line marker");
}

TEST(CudaSourceChecks, FormatErrors) {
  expect_refused(std::string("int x;\0", 7) + kEntry, "NUL byte", Status::format_error);
  expect_refused("__global__ void k() {}\n// matmul\n", "no matmul in the source", Status::format_error);
  expect_refused("__global__ void k() {}\n", "const double *A", Status::format_error);
}

TEST(CudaSourceChecks, CuteStageAllowsCutesBuildingBlocksAndNotCutlassGemms) {
  const std::string blocks =
      "#include <cute/tensor.hpp>\n#include <cute/atom/mma_atom.hpp>\n#include <cute/arch/copy_sm80.hpp>\n"
      "#include <cutlass/numeric_types.h>\n#include <cutlass/arch/barrier.h>\n"
      "#include <cutlass/pipeline/sm90_pipeline.hpp>\n#include <cuda_fp16.h>\n" + std::string(kEntry);
  EXPECT_TRUE(check_in_cute_stage(blocks).ok()) << check_in_cute_stage(blocks).reason;
  // Outside it, CuTe is refused with a pointer to the stage that allows it.
  const Verdict outside = check("#include <cute/tensor.hpp>\n" + std::string(kEntry));
  EXPECT_EQ(outside.status, Status::forbidden);
  EXPECT_NE(outside.reason.find("allowed only in a stage with \"libraries\": [\"cute\"]"), std::string::npos)
      << outside.reason;
  for (const char *gemm : {"cutlass/gemm/device/gemm.h", "cutlass/gemm/kernel/gemm_universal.hpp",
                           "cutlass/gemm/collective/collective_builder.hpp",
                           "cutlass/epilogue/collective/collective_builder.hpp"}) {
    const Verdict verdict = check_in_cute_stage("#include <" + std::string(gemm) + ">\n" + kEntry);
    EXPECT_EQ(verdict.status, Status::forbidden) << gemm;
    EXPECT_NE(verdict.reason.find("a ready-made CUTLASS GEMM"), std::string::npos) << verdict.reason;
  }
  const Verdict util = check_in_cute_stage("#include <cutlass/util/device_memory.h>\n" + std::string(kEntry));
  EXPECT_EQ(util.status, Status::forbidden);
  EXPECT_NE(util.reason.find("CUTLASS's host utilities"), std::string::npos) << util.reason;
  const Verdict other = check_in_cute_stage("#include <cutlass/aligned_buffer.h>\n" + std::string(kEntry));
  EXPECT_EQ(other.status, Status::forbidden);
  EXPECT_NE(other.reason.find("not on the allow-list"), std::string::npos) << other.reason;
  // Everything refused elsewhere stays refused.
  EXPECT_EQ(check_in_cute_stage("#include <cublas_v2.h>\n" + std::string(kEntry)).status, Status::forbidden);
  EXPECT_EQ(check_in_cute_stage("#include <cutlass/util/host_tensor.h>\n" + std::string(kEntry)).status,
            Status::forbidden);
}

// CuTe's placeholder `_` starts "_Pragma": allowed only where CuTe is, and there only where no
// identifier could follow it into _Pragma ("P" to "Pragma"), whether the source pastes itself
// (CUDA-L2's `cute::_##TM`) or a header's macro does (CUTLASS's concat_tok).
TEST(CudaSourceChecks, CutesPlaceholderIsAllowedOnlyInACuteStageAndNotBesideAPragmaPiece) {
  const std::string underscore = "struct U {};\n__device__ U _;\n" + std::string(kEntry);
  EXPECT_TRUE(check_in_cute_stage(underscore).ok()) << check_in_cute_stage(underscore).reason;
  const Verdict outside = check(underscore);
  EXPECT_EQ(outside.status, Status::forbidden);
  EXPECT_NE(outside.reason.find("identifier _ at line 2"), std::string::npos) << outside.reason;
  const std::string own_paste = "#define TILE(n) cute::_##n\n" + underscore;
  EXPECT_TRUE(check_in_cute_stage(own_paste).ok()) << check_in_cute_stage(own_paste).reason;
  for (const char *partner : {"Pragma", "Pra", "P"}) {
    const Verdict beside = check_in_cute_stage("#define CAT(a, b) a##b\nint " + std::string(partner) + ";\n" + underscore);
    EXPECT_EQ(beside.status, Status::forbidden) << partner;
    EXPECT_NE(beside.reason.find("identifier _ at line 4 is refused beside identifier " + std::string(partner) +
                                 " at line 2"),
              std::string::npos)
        << beside.reason;
  }
  const Verdict header_paste = check_in_cute_stage("#include <cutlass/cutlass.h>\n" + underscore +
                                                   "void f() { concat_tok(_, Pragma)(\"GCC optimize(\\\"O0\\\")\"); }\n");
  EXPECT_EQ(header_paste.status, Status::forbidden);
  EXPECT_NE(header_paste.reason.find("rename Pragma"), std::string::npos) << header_paste.reason;
  // A piece spliced across lines is the same piece.
  const Verdict spliced = check_in_cute_stage("int Pr\\\nagma;\n" + underscore);
  EXPECT_NE(spliced.reason.find("beside identifier Pragma at line 1"), std::string::npos) << spliced.reason;
  // Longer pieces of "_Pragma" are never a placeholder.
  EXPECT_EQ(check_in_cute_stage("int _Pra;\n" + std::string(kEntry)).status, Status::forbidden);
}

TEST(CudaSourceChecks, AnAllowedDirectoryCannotBeLeftByPath) {
  for (const char *path : {"cute/../cutlass/gemm/device/gemm.h", "cute/./tensor.hpp", "cute//tensor.hpp",
                           "cute/atom/../../cutlass/util/host_tensor.h", "cute/..", "cute\\tensor.hpp"}) {
    const Verdict verdict = check_in_cute_stage("#include <" + std::string(path) + ">\n" + kEntry);
    EXPECT_EQ(verdict.status, Status::forbidden) << path << ": " << verdict.reason;
  }
  const Verdict dots = check_in_cute_stage("#include <cute/../cutlass/gemm/device/gemm.h>\n" + std::string(kEntry));
  EXPECT_NE(dots.reason.find("no empty, . or .. part"), std::string::npos) << dots.reason;
}

TEST(CudaSourceChecks, ACuteStageOnARankWithoutTheHeadersIsTheNodesFailure) {
  const Verdict verdict = check_in_cute_stage("#include <cute/tensor.hpp>\n" + std::string(kEntry), false);
  EXPECT_EQ(verdict.status, Status::compile_error);
  EXPECT_TRUE(node_failure::decided_by_node(verdict.reason)) << verdict.reason;
  EXPECT_NE(verdict.reason.find("--cute-include"), std::string::npos) << verdict.reason;
}

TEST(CudaIncludePolicy, EveryListedHeaderExistsInTheToolkitOrIsStandard) {
  // The list names real headers: each is either a C/C++ standard header or one that CUDA 13
  // ships (checked by tests/cuda_checks/nvcc_checks_test.cpp when nvcc is there). Here: no
  // listed header has a refusal reason as well.
  for (CutlassAccess access : {CutlassAccess::none, CutlassAccess::cute, CutlassAccess::all}) {
    const NameTable &headers = cuda_source::cuda_include_table(access).headers;
    for (std::string_view header : headers.allowed) EXPECT_FALSE(refusal_reason(headers, header)) << header;
  }
}

// By hand: published kernel files through the source checks of the CuTe stage (or with
// HPCREWARD_PUBLISHED_LIBRARY=cutlass the CUTLASS stage), as published,
// with a Python binding (from its first `#include <torch/`) replaced by a matmul that calls
// nothing. HPCREWARD_PUBLISHED_CUDA_DIR names a directory of .cu files (CUDA-L2's
// kernels/h100_F32F16F16F32 at dbe0177: docs/reports/answers.md); prints the tally by reason.
TEST(CudaSourceChecks, DISABLED_PublishedKernelFiles) {
  const char *directory = std::getenv("HPCREWARD_PUBLISHED_CUDA_DIR");
  ASSERT_NE(directory, nullptr) << "set HPCREWARD_PUBLISHED_CUDA_DIR";
  std::map<std::string, int> reasons;
  int files = 0, passed = 0;
  for (const auto &entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().extension() != ".cu") continue;
    std::ifstream in(entry.path());
    std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (const std::size_t binding = source.find("#include <torch/"); binding != std::string::npos)
      source = source.substr(0, binding);
    source += "\nextern \"C\" void matmul(int m, int n, int k, const half *A, const half *B, half *C) {}\n";
    BenchTask task;
    task.problem = *find_problem("cuda-hgemm-4096");
    // HPCREWARD_PUBLISHED_LIBRARY=cutlass: the cuda-cutlass stage's rules instead of cuda-cute's.
    const char *library = std::getenv("HPCREWARD_PUBLISHED_LIBRARY");
    const bool cutlass = library != nullptr && std::string(library) == "cutlass";
    task.stage = cutlass ? "cuda-cutlass" : "cuda-cute";
    task.libraries = {cutlass ? "cutlass" : "cute"};
    task.source = source;
    const Verdict verdict = CudaSourceChecks(true, cutlass).check_source(task);
    ++files;
    if (verdict.ok()) {
      ++passed;
      continue;
    }
    std::string reason = verdict.reason.substr(0, verdict.reason.find(" at line"));
    ++reasons[std::string(to_string(verdict.status)) + ": " + reason];
  }
  std::printf("%d files, %d pass the source checks\n", files, passed);
  for (const auto &[reason, count] : reasons) std::printf("%5d  %s\n", count, reason.c_str());
}

}  // namespace
}  // namespace hpcreward
