#pragma once
// Shared by the tests that build real objects with nvcc (one process: see CMakeLists.txt).
// Every object is built once per process through one CachingCompiler over the real
// NvccCompiler (sm_90a), so tests that need the same candidate share its build; nothing
// built here is ever loaded or run (there is no GPU, and some samples are hostile).
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench_node/rank/candidate_runner.hpp"
#include "bench_node/checks/compiler.hpp"
#include "bench_node/cuda/caching_compiler.hpp"
#include "bench_node/cuda/cuda_checks.hpp"
#include "bench_node/cuda/cuda_object_audit.hpp"
#include "bench_node/object_audit/object_audit.hpp"
#include "bench_node/cuda/nvcc_compiler.hpp"
#include "bench_node/process/environment.hpp"
#include "bench_node/process/work_dir.hpp"
#include "bench_node/rank/scorer.hpp"
#include "common/builtin_catalogs.hpp"
#include "common/problem_catalog.hpp"
#include "stages/builtin_ladder.hpp"
#include "stages/ladder_config.hpp"

namespace hpcreward::cuda_test {

inline CudaCheckOptions check_options(const std::filesystem::path &root) {
  CudaCheckOptions options;
  options.work_root = root;
  options.compiler.timeout_s = 180;  // two cores shared with other builds
  return options;
}

class Nvcc {
 public:
  static Nvcc &get() {
    static Nvcc nvcc;
    return nvcc;
  }

  bool available() const { return missing_.empty(); }
  const std::string &missing() const { return missing_; }
  bool tools_available() const { return tools_missing_.empty(); }
  const std::string &tools_missing() const { return tools_missing_; }
  const std::filesystem::path &root() const { return root_->path(); }
  CachingCompiler &compiler() { return *compiler_; }
  ObjectAudit &audit() { return *audit_; }

  // The build of `source` with the stage flags `flags` (once per process).
  const CompileOutcome &build(const std::string &source, const std::vector<std::string> &flags = {"-O3"}) {
    const std::string key = compile_cache_key("", {source, flags, {}});
    if (auto found = builds_.find(key); found != builds_.end()) return found->second;
    directories_.push_back(std::make_unique<WorkDir>(root(), "cand"));
    return builds_.emplace(key, compiler_->compile({source, flags, directories_.back()->path()}))
        .first->second;
  }

  BenchTask task(const std::string &source, const std::string &problem = "cuda-dgemm-1024") const {
    BenchTask task;
    task.problem = *find_problem(problem);
    task.stage = "open";
    task.compiler_flags = {"-O3"};
    task.techniques_allowed = {"smem", "tensor", "async"};
    task.source = source;
    return task;
  }

 private:
  Nvcc() {
    root_ = std::make_unique<WorkDir>(std::filesystem::path(::testing::TempDir()),
                                      "hpcreward-cuda-checks-" + std::to_string(::getpid()));
    const CudaCheckOptions options = check_options(root());
    if (!find_executable(options.compiler.nvcc)) missing_ = "nvcc not found at " + options.compiler.nvcc;
    for (const std::string &tool : {options.cuobjdump, options.nvdisasm})
      if (!find_executable(tool)) tools_missing_ += tool + " not found; ";
    if (!available()) return;
    compiler_ = std::make_unique<CachingCompiler>(std::make_unique<NvccCompiler>(options.compiler),
                                                  nvcc_identity(options.compiler), CompileCacheOptions{root()});
    audit_ = cuda_object_audit(CudaObjectAuditOptions{options.compiler, root()});
  }

  std::unique_ptr<WorkDir> root_;
  std::string missing_, tools_missing_;
  std::unique_ptr<CachingCompiler> compiler_;
  std::unique_ptr<ObjectAudit> audit_;
  std::vector<std::unique_ptr<WorkDir>> directories_;
  std::map<std::string, CompileOutcome> builds_;
};

#define REQUIRE_NVCC()                                                                   \
  do {                                                                                   \
    if (!::hpcreward::cuda_test::Nvcc::get().available())                                \
      GTEST_SKIP() << "CUDA toolkit missing: " << ::hpcreward::cuda_test::Nvcc::get().missing(); \
  } while (0)

#define REQUIRE_CUDA_TOOLS()                                                             \
  do {                                                                                   \
    REQUIRE_NVCC();                                                                      \
    if (!::hpcreward::cuda_test::Nvcc::get().tools_available())                          \
      GTEST_SKIP() << "CUDA tools missing: " << ::hpcreward::cuda_test::Nvcc::get().tools_missing(); \
  } while (0)

// The sample candidates (never run).
namespace samples {

inline const std::string kNaive =
    "#include <cuda_runtime.h>\n"
    "__global__ void naive(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= m || j >= n) return;\n"
    "  double s = 0;\n"
    "  for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];\n"
    "  C[i * n + j] = s;\n"
    "}\n"
    "extern \"C\" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);\n"
    "  naive<<<grid, block>>>(m, n, k, A, B, C);\n"
    "}\n";

inline const std::string kTiled =
    "#include <cuda_runtime.h>\n"
    "#define T 16\n"
    "__global__ void tiled(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  __shared__ double As[T][T], Bs[T][T];\n"
    "  int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;\n"
    "  double s = 0;\n"
    "  for (int t = 0; t < k; t += T) {\n"
    "    As[threadIdx.y][threadIdx.x] = (r < m && t + threadIdx.x < k) ? A[r * k + t + threadIdx.x] : 0;\n"
    "    Bs[threadIdx.y][threadIdx.x] = (c < n && t + threadIdx.y < k) ? B[(t + threadIdx.y) * n + c] : 0;\n"
    "    __syncthreads();\n"
    "#pragma unroll\n"
    "    for (int p = 0; p < T; ++p) s += As[threadIdx.y][p] * Bs[p][threadIdx.x];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (r < m && c < n) C[r * n + c] = s;\n"
    "}\n"
    "extern \"C\" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  dim3 block(T, T), grid((n + T - 1) / T, (m + T - 1) / T);\n"
    "  tiled<<<grid, block>>>(m, n, k, A, B, C);\n"
    "}\n";

inline const std::string kWmma =
    "#include <cuda_fp16.h>\n#include <mma.h>\n"
    "using namespace nvcuda;\n"
    "__global__ void wmma_gemm(int m, int n, int k, const __half *A, const __half *B, __half *C) {\n"
    "  const int tm = blockIdx.y * 16, tn = blockIdx.x * 16;\n"
    "  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;\n"
    "  wmma::fill_fragment(acc, 0.0f);\n"
    "  for (int p = 0; p < k; p += 16) {\n"
    "    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;\n"
    "    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;\n"
    "    wmma::load_matrix_sync(a, A + tm * k + p, k);\n"
    "    wmma::load_matrix_sync(b, B + p * n + tn, n);\n"
    "    wmma::mma_sync(acc, a, b, acc);\n"
    "  }\n"
    "  wmma::fragment<wmma::accumulator, 16, 16, 16, __half> out;\n"
    "  for (int i = 0; i < out.num_elements; ++i) out.x[i] = __float2half(acc.x[i]);\n"
    "  wmma::store_matrix_sync(C + tm * n + tn, out, n, wmma::mem_row_major);\n"
    "}\n"
    "extern \"C\" void matmul(int m, int n, int k, const __half *A, const __half *B, __half *C) {\n"
    "  wmma_gemm<<<dim3(n / 16, m / 16), 32>>>(m, n, k, A, B, C);\n"
    "}\n";

inline const std::string kCpAsync =
    "#include <cuda_runtime.h>\n#include <cuda_pipeline.h>\n"
    "__global__ void staged(int m, int n, int k, const float *A, const float *B, float *C) {\n"
    "  __shared__ float tile[256];\n"
    "  const int i = blockIdx.x * 256 + threadIdx.x;\n"
    "  float s = 0;\n"
    "  for (int p = 0; p < k; p += 256) {\n"
    "    __pipeline_memcpy_async(&tile[threadIdx.x], &A[p + threadIdx.x], sizeof(float));\n"
    "    __pipeline_commit();\n"
    "    __pipeline_wait_prior(0);\n"
    "    __syncthreads();\n"
    "    for (int q = 0; q < 256 && p + q < k; ++q) s += tile[q] * B[(p + q) * n + i % n];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (i < m * n) C[i] = s;\n"
    "}\n"
    "extern \"C\" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {\n"
    "  staged<<<(m * n + 255) / 256, 256>>>(m, n, k, A, B, C);\n"
    "}\n";

// Hopper's own instructions through inline PTX: a bulk copy into shared memory (UBLKCP) with
// an mbarrier (SYNCS), and a warpgroup MMA (HGMMA).
inline const std::string kHopperPtx =
    "#include <cuda_runtime.h>\n"
    "__global__ void hopper(float *out, const void *g, unsigned long long desc) {\n"
    "  __shared__ alignas(128) char buf[4096];\n"
    "  __shared__ alignas(8) unsigned long long bar;\n"
    "  unsigned sb = (unsigned)__cvta_generic_to_shared(buf), sbar = (unsigned)__cvta_generic_to_shared(&bar);\n"
    "  if (threadIdx.x == 0) {\n"
    "    asm volatile(\"mbarrier.init.shared.b64 [%0], 1;\" :: \"r\"(sbar));\n"
    "    asm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 4096, [%2];\"\n"
    "                 :: \"r\"(sb), \"l\"(g), \"r\"(sbar) : \"memory\");\n"
    "  }\n"
    "  float d[4] = {0, 0, 0, 0};\n"
    "  asm volatile(\"wgmma.fence.sync.aligned;\");\n"
    "  asm volatile(\"{ wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0; }\"\n"
    "               : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3]) : \"l\"(desc), \"l\"(desc));\n"
    "  asm volatile(\"wgmma.commit_group.sync.aligned;\");\n"
    "  asm volatile(\"wgmma.wait_group.sync.aligned 0;\");\n"
    "  out[threadIdx.x] = d[0] + d[1] + d[2] + d[3];\n"
    "}\n"
    "extern \"C\" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {\n"
    "  (void)m; (void)n; (void)k; (void)B;\n"
    "  hopper<<<1, 128>>>(C, A, 0);\n"
    "}\n";

// Technique names in a kernel's name, a device string and a comment: none may count.
inline const std::string kNamedHmma =
    "#include <cuda_runtime.h>\n"
    "// HMMA.16816.F32 LDGSTS.E UTMALDG.2D LDS.U.128 STS.128\n"
    "__device__ const char kNote[] = \"HMMA.16816.F32 R8, R4, R18, RZ ; LDGSTS LDS STS UTMALDG\";\n"
    "extern \"C\" __global__ void HMMA_16816_F32_LDGSTS_LDS_STS_kernel(int n, const double *A, double *C, char *note) {\n"
    "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) C[i] = 2 * A[i];\n"
    "  if (i < (int)sizeof kNote) note[i] = kNote[i];\n"
    "}\n"
    "extern \"C\" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  (void)B; (void)k;\n"
    "  HMMA_16816_F32_LDGSTS_LDS_STS_kernel<<<(m * n + 255) / 256, 256>>>(m * n, A, C, (char *)C);\n"
    "}\n";

// A non-inline __device__ helper: nvcc gives it a host stub whose body calls exit.
inline const std::string kDeviceHelper =
    "#include <cuda_runtime.h>\n"
    "__device__ double dot(const double *a, int lda, const double *b, int ldb, int n) {\n"
    "  double s = 0;\n"
    "  for (int p = 0; p < n; ++p) s += a[p * lda] * b[p * ldb];\n"
    "  return s;\n"
    "}\n"
    "__global__ void naive(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < m && j < n) C[i * n + j] = dot(A + i * k, 1, B + j, n, k);\n"
    "}\n"
    "extern \"C\" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);\n"
    "  naive<<<grid, block>>>(m, n, k, A, B, C);\n"
    "}\n";

// A hand-written cuBLAS prototype: the link fails under -z defs.
inline const std::string kCublasPrototype =
    "typedef struct cublasContext *cublasHandle_t;\n"
    "extern \"C\" int cublasCreate_v2(cublasHandle_t *);\n"
    "extern \"C\" int cublasDgemm_v2(cublasHandle_t, int, int, int, int, int, const double *,\n"
    "                                const double *, int, const double *, int, const double *, double *, int);\n"
    "extern \"C\" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  cublasHandle_t h; cublasCreate_v2(&h);\n"
    "  const double one = 1, zero = 0;\n"
    "  cublasDgemm_v2(h, 0, 0, n, m, k, &one, B, n, A, k, &zero, C, n);\n"
    "}\n";

// A CUDA matmul whose host side does one more thing: `extra` (declarations before it in `top`).
inline std::string host_does(const std::string &top, const std::string &extra) {
  return "#include <cuda_runtime.h>\n" + top +
         "__global__ void scale(double *C) { C[threadIdx.x] *= 1.0; }\n"
         "extern \"C\" void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
         "  (void)m; (void)n; (void)k; (void)B;\n" +
         extra +
         "\n  scale<<<1, 32>>>(C);\n"
         "}\n";
}

}  // namespace samples
// Hands every request to the process's shared cache (a Scorer owns its compiler).
class SharedCompiler : public Compiler {
 public:
  CompileOutcome compile(const CompileRequest &request) override {
    return Nvcc::get().compiler().compile(request);
  }
};

// Stands in for the runner: counts the candidates that got past every pre-run check.
class CountingRunner : public CandidateRunner {
 public:
  explicit CountingRunner(int &runs) : runs_(runs) {}
  Measurement run(const RunRequest &) override {
    ++runs_;
    Measurement measurement;
    measurement.status = Status::ok;
    measurement.gflops = 1;
    return measurement;
  }

 private:
  int &runs_;
};

inline std::string read_text(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `source` through every check a GPU rank runs before the run (source checks, nvcc, the object
// audit, SASS techniques against the stage `stage_name` of the built-in ladder), the runner a
// CountingRunner on `runs`. A failed Measurement with the reason for an unknown problem or stage.
inline Measurement score_before_run(const std::string &problem_name, const std::string &stage_name,
                                    const std::string &source, int &runs) {
  // The run's catalog first, then every built-in one (the bf16 samples' problem is llm-layers').
  const Problem *problem = find_problem(problem_name);
  static const std::vector<ProblemCatalog> builtin = [] {
    std::vector<ProblemCatalog> catalogs;
    for (const std::string &name : builtin_catalog_names()) catalogs.push_back(load_problem_catalog(name));
    return catalogs;
  }();
  for (const ProblemCatalog &catalog : builtin)
    if (problem == nullptr) problem = catalog.find(problem_name);
  const LadderConfig ladder = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  const StageSpec *stage = ladder.find(stage_name);
  if (problem == nullptr || stage == nullptr || stage->language != Language::cuda) {
    Measurement bad;
    bad.reason = "unknown CUDA problem or stage: " + problem_name + " " + stage_name;
    return bad;
  }
  WorkDir work(Nvcc::get().root(), "scored");
  BenchOptions options;
  options.work_root = work.path();
  Scorer scorer(options, std::make_unique<SharedCompiler>(), std::make_unique<CountingRunner>(runs));
  add_cuda_checks(scorer, check_options(work.path()));
  BenchTask task;
  task.problem = *problem;
  task.stage = stage->name;
  task.compiler_flags = stage->compiler_flags;
  task.techniques_allowed = stage->techniques_allowed;
  task.techniques_required = stage->techniques_required;
  task.libraries = stage->libraries;
  task.source = source;
  return scorer.score(task);
}

}  // namespace hpcreward::cuda_test
