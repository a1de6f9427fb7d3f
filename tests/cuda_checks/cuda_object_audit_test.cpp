// The CUDA object audit on objects nvcc really built (never loaded).
#include "bench_node/cuda/cuda_object_audit.hpp"

#include "bench_node/cuda/host_code_scan.hpp"
#include "nvcc_support.hpp"

namespace hpcreward::cuda_test {
namespace {

using samples::host_does;

// Builds `source` (which must compile) and audits it.
Verdict audit(const std::string &source) {
  const CompileOutcome &built = Nvcc::get().build(source);
  EXPECT_TRUE(built.verdict.ok()) << built.verdict.reason << "\n" << built.log;
  if (!built.verdict.ok()) return built.verdict;
  return Nvcc::get().audit().check_object(Nvcc::get().task(source), built.object);
}

void expect_forbidden(const std::string &source, const std::string &reason_part) {
  const Verdict verdict = audit(source);
  EXPECT_EQ(verdict.status, Status::forbidden) << verdict.reason;
  EXPECT_NE(verdict.reason.find(reason_part), std::string::npos)
      << "reason '" << verdict.reason << "' lacks '" << reason_part << "'";
}

TEST(CudaObjectAudit, KernelsThatOnlyComputePass) {
  REQUIRE_NVCC();
  for (const std::string *source : {&samples::kNaive, &samples::kTiled, &samples::kWmma, &samples::kCpAsync}) {
    const Verdict verdict = audit(*source);
    EXPECT_TRUE(verdict.ok()) << verdict.reason << "\n" << *source;
  }
}

TEST(CudaObjectAudit, ADeviceHelperFunctionPasses) {
  REQUIRE_NVCC();
  const Verdict verdict = audit(samples::kDeviceHelper);
  EXPECT_TRUE(verdict.ok()) << verdict.reason;
}

// cuda_runtime.h brings in stdlib.h, so host code can name these; the link keeps what host
// code can reach, and the audit refuses it.
// Ending the process from host code reaches nothing outside it (the measurer sees the executor
// end: runtime_error); a hijacked candidate reaches exit through libc's address anyway.
TEST(CudaObjectAudit, HostCodeThatEndsTheProcessPasses) {
  REQUIRE_NVCC();
  for (const char *call : {"exit", "std::exit", "_Exit", "abort"}) {
    const std::string name = std::string(call).substr(std::string(call).rfind(':') + 1);
    const std::string argument = name == "abort" ? "" : "0";
    const Verdict verdict = audit(host_does("", "  if (m > 0) " + std::string(call) + "(" + argument + ");"));
    EXPECT_TRUE(verdict.ok()) << call << ": " << verdict.reason;
  }
  expect_forbidden(host_does("", "  if (m > 0) std::quick_exit(0);"), "the object calls quick_exit (ends the process)");
}

// nvcc lets host code reach a __device__ function's host stub (its body calls exit): through
// a __host__ __device__ template whose call depends on a template parameter (checked only
// when instantiated, and not then), or through the function's address. Such a stub is kept,
// and its exit, like any other, only ends the executor.
TEST(CudaObjectAudit, HostCodeThatReachesADeviceFunctionsStubPasses) {
  REQUIRE_NVCC();
  const std::string helper = "__device__ double twice(const double *a) { return 2 * a[0]; }\n";
  for (const std::string &source :
       {host_does(helper + "template <typename T> __host__ __device__ double both(const T *a) { return twice(a); }\n",
                  "  if (m > 0) (void)both(A);"),
        host_does(helper, "  auto f = &twice;\n  if (m > 0) (void)f(A);")}) {
    const Verdict verdict = audit(source);
    EXPECT_TRUE(verdict.ok()) << verdict.reason;
  }
}

TEST(CudaObjectAudit, HostCodeOfAPassingObjectHasNoSystemCall) {
  REQUIRE_NVCC();
  const HostCodeScan scan = scan_host_code(Nvcc::get().build(samples::kNaive).object);
  ASSERT_TRUE(scan.read) << scan.error;
  EXPECT_GT(scan.instructions, 50u);
  EXPECT_TRUE(scan.found.empty()) << scan.found.front().text;
}

TEST(CudaObjectAudit, SystemIsRefused) {
  REQUIRE_NVCC();
  expect_forbidden(host_does("extern \"C\" int system(const char *);\n", "  system(\"true\");"),
                   "the object calls system (process control");
}

TEST(CudaObjectAudit, CudaDeviceResetIsRefused) {
  REQUIRE_NVCC();
  expect_forbidden(host_does("", "  cudaDeviceReset();"),
                   "calls cudaDeviceReset (destroys the CUDA context the harness runs in)");
}

TEST(CudaObjectAudit, AnL2AccessPolicyWindowIsRefused) {
  REQUIRE_NVCC();
  expect_forbidden(host_does("",
                             "  cudaStreamAttrValue v = {};\n"
                             "  v.accessPolicyWindow.base_ptr = (void *)A;\n"
                             "  v.accessPolicyWindow.num_bytes = 1 << 20;\n"
                             "  v.accessPolicyWindow.hitRatio = 1.0f;\n"
                             "  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;\n"
                             "  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;\n"
                             "  cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &v);"),
                   "cudaStreamSetAttribute (stream attributes (L2 persistence");
}

TEST(CudaObjectAudit, GraphCaptureIsRefused) {
  REQUIRE_NVCC();
  expect_forbidden(host_does("",
                             "  cudaStream_t s; cudaStreamCreate(&s);\n"
                             "  cudaGraph_t g; cudaGraphExec_t e;\n"
                             "  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
                             "  scale<<<1, 32, 0, s>>>(C);\n"
                             "  cudaStreamEndCapture(s, &g);\n"
                             "  cudaGraphInstantiate(&e, g, 0);\n"
                             "  cudaGraphLaunch(e, s);"),
                   "graphs");
}

TEST(CudaObjectAudit, ManagedMemoryIsRefused) {
  REQUIRE_NVCC();
  expect_forbidden(host_does("", "  double *p; cudaMallocManaged(&p, sizeof *p); C = p;"),
                   "calls cudaMallocManaged (managed memory");
}

TEST(CudaObjectAudit, ASystemCallInHostAsmIsRefused) {
  REQUIRE_NVCC();
#if defined(__x86_64__)
  expect_forbidden(host_does("",
                             "  long r;\n"
                             "  asm volatile(\"syscall\" : \"=a\"(r) : \"a\"(39L) : \"rcx\", \"r11\", \"memory\");\n"
                             "  if (r < 0) C = nullptr;"),
                   "the host code has a syscall instruction");
#else
  GTEST_SKIP() << "the sample's inline asm is x86-64";
#endif
}

TEST(CudaObjectAudit, AGlobalObjectWithAConstructorIsLoadTimeCode) {
  REQUIRE_NVCC();
  // Legal C++ the source checks let through: its constructor runs when the object is loaded.
  expect_forbidden(host_does("struct Warm { Warm() { cudaFree(0); } };\nWarm warm;\n", ""),
                   "the object has a constructor (.init_array");
}

TEST(CudaObjectAudit, AMatmulWithoutExternCIsNamed) {
  REQUIRE_NVCC();
  const Verdict verdict =
      audit("void matmul(int m, int n, int k, const double *A, const double *B, double *C) {}\n");
  EXPECT_EQ(verdict.status, Status::format_error);
  EXPECT_NE(verdict.reason.find("extern \"C\""), std::string::npos) << verdict.reason;
  EXPECT_NE(verdict.reason.find("_Z6matmul"), std::string::npos) << verdict.reason;
}

TEST(CudaObjectAudit, AFileThatIsNoObjectIsACompileError) {
  REQUIRE_NVCC();
  WorkDir directory(Nvcc::get().root(), "junk");
  ASSERT_TRUE(write_private_file(directory.path() / "cand.so", "not an ELF file"));
  const Verdict verdict =
      Nvcc::get().audit().check_object(Nvcc::get().task(""), directory.path() / "cand.so");
  EXPECT_EQ(verdict.status, Status::compile_error) << verdict.reason;
}

}  // namespace
}  // namespace hpcreward::cuda_test
