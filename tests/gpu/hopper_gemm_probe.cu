// The Hopper GEMM probe's program (tests/gpu/hopper_gemm_probe.py builds and runs it): loads one
// candidate object (dlopen, its `extern "C" matmul`), checks it against cuBLAS at the shapes it
// is given, and times it where asked; or times cuBLAS's HGEMM alone.
//
//   hopper_gemm_probe --device                       the GPU, or why there is none (exit 3)
//   hopper_gemm_probe --cublas SHAPE [--bf16]        cuBLAS (cublasGemmEx, fp32 accumulation): TIME lines
//   hopper_gemm_probe --so cand.so [--bf16] [--time SHAPE] SHAPE...
//
// SHAPE is MxNxK, or MxNxK+1 for operands and output one element past a 16-byte boundary (the
// candidate's unaligned path). Output, one line each:
//   DEVICE <name> sm_<major><minor>
//   CHECK <shape> ok|FAIL bad=<elements> worst=<ratio> [<error>]
//   TIME <shape> <median ms> <TFLOPS>
// A check compares every element of C with the fp32-accumulated cuBLAS product: |C - ref| <=
// 1e-2 (|A| |B|)_ij (the project's element tolerance for 16-bit problems, common/problem_catalog.cpp);
// C starts as NaN, so an element never written fails. worst is the largest |C - ref| / bound.
// Timing: 3 calls to warm up, then 20 calls each between two events; the median.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Matmul = void (*)(int, int, int, const void *, const void *, void *);

struct Shape {
  int m = 0, n = 0, k = 0, offset = 0;
  std::string text;
};

bool parse_shape(const char *text, Shape &shape) {
  char plus = 0;
  int offset = 0;
  const int got = std::sscanf(text, "%dx%dx%d%c%d", &shape.m, &shape.n, &shape.k, &plus, &offset);
  if (got < 3 || shape.m < 1 || shape.n < 1 || shape.k < 1) return false;
  if (got >= 4 && (plus != '+' || got != 5 || offset < 0 || offset > 7)) return false;
  shape.offset = got == 5 ? offset : 0;
  shape.text = text;
  return true;
}

[[noreturn]] void fail(const std::string &what, int code = 1) {
  std::fprintf(stderr, "hopper_gemm_probe: %s\n", what.c_str());
  std::exit(code);
}

void check_cuda(cudaError_t status, const char *what) {
  if (status != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(status));
}

void check_cublas(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS) fail(std::string(what) + ": cuBLAS status " + std::to_string(status));
}

// Uniform in [-1, 1) from a hash of the index and a seed, as 16-bit values (raw bits in `out`).
__global__ void fill(uint16_t *out, size_t count, uint32_t seed, bool bf16) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t x = static_cast<uint32_t>(i) * 2654435761u ^ seed ^ static_cast<uint32_t>(i >> 32) * 40503u;
    x ^= x >> 15; x *= 2246822519u; x ^= x >> 13; x *= 3266489917u; x ^= x >> 16;
    const float v = (x >> 8) * (2.0f / 16777216.0f) - 1.0f;
    if (bf16) {
      const __nv_bfloat16 b = __float2bfloat16(v);
      out[i] = *reinterpret_cast<const uint16_t *>(&b);
    } else {
      const __half h = __float2half(v);
      out[i] = *reinterpret_cast<const uint16_t *>(&h);
    }
  }
}

__global__ void absolute(const uint16_t *in, uint16_t *out, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i] & 0x7fffu;  // the sign bit is bit 15 in fp16 and bf16 alike
}

__device__ float to_float(uint16_t bits, bool bf16) {
  if (bf16) return __bfloat162float(*reinterpret_cast<const __nv_bfloat16 *>(&bits));
  return __half2float(*reinterpret_cast<const __half *>(&bits));
}

// bad: elements outside the bound (NaN included); worst: the largest error / bound, as float bits.
__global__ void compare(const uint16_t *c, const float *ref, const float *scale, size_t count, float tolerance,
                        bool bf16, unsigned long long *bad, unsigned *worst) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const float v = to_float(c[i], bf16);
    const float bound = tolerance * scale[i] + 1e-6f;
    const float ratio = std::fabs(v - ref[i]) / bound;
    if (!(ratio <= 1.0f)) atomicAdd(bad, 1ull);
    const float shown = ratio == ratio ? std::fmin(ratio, 3.0e38f) : 3.0e38f;
    atomicMax(worst, __float_as_uint(shown));  // non-negative floats order as their bits
  }
}

struct Buffers {
  uint16_t *a = nullptr, *b = nullptr, *c = nullptr, *abs_a = nullptr, *abs_b = nullptr;
  float *ref = nullptr, *scale = nullptr;
  ~Buffers() {
    for (void *p : {static_cast<void *>(a), static_cast<void *>(b), static_cast<void *>(c), static_cast<void *>(abs_a),
                    static_cast<void *>(abs_b), static_cast<void *>(ref), static_cast<void *>(scale)})
      if (p) cudaFree(p);
  }
};

constexpr int kBlocks = 1024, kThreads = 256;

// cuBLAS is column-major: C^T (n x m) = B^T (n x k) A^T (k x m), B^T being B's row-major storage.
void reference(cublasHandle_t handle, const Shape &s, const void *a, const void *b, float *c, bool bf16) {
  const float one = 1.0f, zero = 0.0f;
  const cudaDataType type = bf16 ? CUDA_R_16BF : CUDA_R_16F;
  check_cublas(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, b, type, s.n, a, type, s.k, &zero,
                            c, CUDA_R_32F, s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx (reference)");
}

template <class Call>
double median_ms(Call call) {
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < 3; ++i) call();
  check_cuda(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> times;
  for (int i = 0; i < 20; ++i) {
    check_cuda(cudaEventRecord(start), "cudaEventRecord");
    call();
    check_cuda(cudaEventRecord(stop), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop), "timed call");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  check_cuda(cudaGetLastError(), "timed calls");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return 0.5 * (times[9] + times[10]);
}

void print_time(const Shape &s, double ms) {
  const double tflops = 2.0 * s.m * s.n * double(s.k) / (ms * 1e-3) / 1e12;
  std::printf("TIME %s %.4f %.1f\n", s.text.c_str(), ms, tflops);
  std::fflush(stdout);
}

void allocate(Buffers &buf, const Shape &s, bool with_reference) {
  const size_t extra = 8;  // room for the +offset variants
  check_cuda(cudaMalloc(&buf.a, (size_t(s.m) * s.k + extra) * 2), "cudaMalloc A");
  check_cuda(cudaMalloc(&buf.b, (size_t(s.k) * s.n + extra) * 2), "cudaMalloc B");
  check_cuda(cudaMalloc(&buf.c, (size_t(s.m) * s.n + extra) * 2), "cudaMalloc C");
  if (with_reference) {
    check_cuda(cudaMalloc(&buf.abs_a, size_t(s.m) * s.k * 2), "cudaMalloc |A|");
    check_cuda(cudaMalloc(&buf.abs_b, size_t(s.k) * s.n * 2), "cudaMalloc |B|");
    check_cuda(cudaMalloc(&buf.ref, size_t(s.m) * s.n * 4), "cudaMalloc ref");
    check_cuda(cudaMalloc(&buf.scale, size_t(s.m) * s.n * 4), "cudaMalloc scale");
  }
}

int device_line() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0)
    fail(std::string("no CUDA GPU here (") + (status != cudaSuccess ? cudaGetErrorString(status) : "no device") +
             "): the probe needs a Hopper GPU (sm_90a)",
         3);
  cudaDeviceProp prop;
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("DEVICE %s sm_%d%d\n", prop.name, prop.major, prop.minor);
  std::fflush(stdout);
  if (prop.major != 9)
    fail("the candidates are built for sm_90a (Hopper's wgmma and TMA); this GPU is sm_" + std::to_string(prop.major) +
             std::to_string(prop.minor),
         3);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  std::string so, cublas_shape, time_shape;
  bool bf16 = false, device_only = false;
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--so" && i + 1 < argc) so = argv[++i];
    else if (arg == "--cublas" && i + 1 < argc) cublas_shape = argv[++i];
    else if (arg == "--time" && i + 1 < argc) time_shape = argv[++i];
    else if (arg == "--bf16") bf16 = true;
    else if (arg == "--device") device_only = true;
    else {
      Shape s;
      if (!parse_shape(argv[i], s)) fail("not a shape (MxNxK or MxNxK+OFFSET): " + arg, 2);
      shapes.push_back(s);
    }
  }
  device_line();
  if (device_only) return 0;
  cublasHandle_t handle;
  check_cublas(cublasCreate(&handle), "cublasCreate");

  if (!cublas_shape.empty()) {
    Shape s;
    if (!parse_shape(cublas_shape.c_str(), s)) fail("not a shape: " + cublas_shape, 2);
    Buffers buf;
    allocate(buf, s, false);
    fill<<<kBlocks, kThreads>>>(buf.a, size_t(s.m) * s.k, 1, bf16);
    fill<<<kBlocks, kThreads>>>(buf.b, size_t(s.k) * s.n, 2, bf16);
    const float one = 1.0f, zero = 0.0f;
    const cudaDataType type = bf16 ? CUDA_R_16BF : CUDA_R_16F;
    print_time(s, median_ms([&] {
                 cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, buf.b, type, s.n, buf.a, type, s.k,
                              &zero, buf.c, type, s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
               }));
    return 0;
  }

  if (so.empty()) fail("--so, --cublas or --device", 2);
  void *object = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (object == nullptr) fail(std::string("dlopen: ") + dlerror());
  auto matmul = reinterpret_cast<Matmul>(dlsym(object, "matmul"));
  if (matmul == nullptr) fail("no matmul in " + so);

  int failures = 0;
  for (const Shape &s : shapes) {
    Buffers buf;
    allocate(buf, s, true);
    const size_t mk = size_t(s.m) * s.k, kn = size_t(s.k) * s.n, mn = size_t(s.m) * s.n;
    uint16_t *a = buf.a + s.offset, *b = buf.b + s.offset, *c = buf.c + s.offset;
    fill<<<kBlocks, kThreads>>>(a, mk, 1, bf16);
    fill<<<kBlocks, kThreads>>>(b, kn, 2, bf16);
    absolute<<<kBlocks, kThreads>>>(a, buf.abs_a, mk);
    absolute<<<kBlocks, kThreads>>>(b, buf.abs_b, kn);
    check_cuda(cudaMemset(c, 0xff, mn * 2), "cudaMemset C");  // NaN in fp16 and bf16
    reference(handle, s, a, b, buf.ref, bf16);
    reference(handle, s, buf.abs_a, buf.abs_b, buf.scale, bf16);
    check_cuda(cudaDeviceSynchronize(), "inputs and reference");
    matmul(s.m, s.n, s.k, a, b, c);
    const cudaError_t launched = cudaGetLastError();
    const cudaError_t finished = cudaDeviceSynchronize();
    if (launched != cudaSuccess || finished != cudaSuccess) {
      // A fault leaves the context unusable: report and stop.
      std::printf("CHECK %s FAIL bad=? worst=? %s\n", s.text.c_str(),
                  cudaGetErrorString(launched != cudaSuccess ? launched : finished));
      return 1;
    }
    unsigned long long *bad;
    unsigned *worst;
    check_cuda(cudaMalloc(&bad, sizeof *bad), "cudaMalloc");
    check_cuda(cudaMalloc(&worst, sizeof *worst), "cudaMalloc");
    check_cuda(cudaMemset(bad, 0, sizeof *bad), "cudaMemset");
    check_cuda(cudaMemset(worst, 0, sizeof *worst), "cudaMemset");
    const float tolerance = std::max(1e-2f, 0.5f * s.k * std::ldexp(1.0f, -24));
    compare<<<kBlocks, kThreads>>>(c, buf.ref, buf.scale, mn, tolerance, bf16, bad, worst);
    unsigned long long bad_host = 0;
    unsigned worst_bits = 0;
    check_cuda(cudaMemcpy(&bad_host, bad, sizeof bad_host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    check_cuda(cudaMemcpy(&worst_bits, worst, sizeof worst_bits, cudaMemcpyDeviceToHost), "cudaMemcpy");
    cudaFree(bad);
    cudaFree(worst);
    float worst_ratio;
    std::memcpy(&worst_ratio, &worst_bits, sizeof worst_ratio);
    std::printf("CHECK %s %s bad=%llu worst=%.3g\n", s.text.c_str(), bad_host ? "FAIL" : "ok", bad_host, worst_ratio);
    std::fflush(stdout);
    failures += bad_host != 0;
    if (s.text == time_shape) print_time(s, median_ms([&] { matmul(s.m, s.n, s.k, a, b, c); }));
  }
  cublasDestroy(handle);
  return failures ? 1 : 0;
}
