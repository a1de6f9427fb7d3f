// A probe, not built with the project: does a GEMM's time depend on its input values? Times
// cuBLAS SGEMM (fp32, and TF32 tensor cores) and a plain 32x32-tiled kernel on five input
// distributions of the same shape, interleaved round by round so clock drift hits all alike:
//   uniform   u in [-1, 1)                     (hgemm/dgemm inputs, most hand-written runners)
//   separable u 2^e, e in [-20, 20] per row of A and column of B   (the earliest sgemm inputs)
//   rank-one  u 2^e, e(A_ip) = round(100 x_i y_p), e(B_pj) = round(-100 y_p z_j)   (the next)
//   pattern   the sgemm inputs now (bench_node/measure/input_values.hpp: elements within
//             2^+-50, products within 2^+-100, exponents from points in 6 dimensions)
//   runner    +-(r + 0.01 s), r, s in 0..4     (siboehm/SGEMM_CUDA's randomize_matrix: 20% zeros)
//   zeros     all zero                          (least bit toggling: a power floor)
// Each line gives the median of `reps` calls (events around each) and the distribution's share
// of zero and subnormal elements; first, each distribution's device fill of A and B (the
// measurer's fill runs outside the clock, once per call). Clocks and power:
// `nvidia-smi dmon -s pc` beside it.
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o /tmp/input_timing_probe tests/gpu/input_timing_probe.cu -lcublas
//   /tmp/input_timing_probe [SIZE=4096] [REPS=50]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_node/measure/input_values.hpp"

namespace {

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

enum Kind { kUniform, kSeparable, kRankOne, kPattern, kRunner, kZeros, kKinds };
const char *const kNames[kKinds] = {"uniform", "separable", "rank-one", "pattern", "runner", "zeros"};

// The rank-one pattern's factors: x_i, z_j in [0, 1), y_p in [-1, 1).
__device__ double rank_one_factor(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return hpcreward::input_unit(hpcreward::input_mix(hpcreward::input_mix(seed ^ (stream * 0x9e3779b97f4a7c15ULL)) + index));
}

__global__ void fill(float *data, int rows, int cols, std::uint64_t seed, hpcreward::Operand which, Kind kind) {
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
    int e = 0;
    const double u = hpcreward::input_mantissa(seed, which, cols, i, kind == kPattern, &e);
    const std::uint64_t bits = hpcreward::input_mix(seed * 31 + i);
    double v = ldexp(u, e);
    if (kind == kRankOne) {
      const std::size_t row = i / cols, col = i % cols;
      const double v_row = which == hpcreward::Operand::a ? 0.5 * rank_one_factor(seed, 11, row) + 0.5
                                                          : rank_one_factor(seed, 12, row);
      const double v_col = which == hpcreward::Operand::a ? rank_one_factor(seed, 12, col)
                                                          : -(0.5 * rank_one_factor(seed, 13, col) + 0.5);
      const double exponent = 100 * v_row * v_col;
      v = ldexp(u, static_cast<int>(exponent < 0 ? exponent - 0.5 : exponent + 0.5));
    } else if (kind == kSeparable) {  // e per row of A, per column of B
      const std::size_t line = which == hpcreward::Operand::a ? i / cols : i % cols;
      v = ldexp(u, static_cast<int>(hpcreward::input_mix(seed ^ (0x5bd1e995ULL + line)) % 41) - 20);
    } else if (kind == kRunner) {
      v = ((bits >> 8) % 5 + 0.01 * ((bits >> 16) % 5)) * ((bits & 1) ? -1.0 : 1.0);
    } else if (kind == kZeros) {
      v = 0;
    }
    data[i] = static_cast<float>(v);
  }
}

__global__ void count_special(const float *data, std::size_t count, unsigned long long *zeros,
                              unsigned long long *subnormal) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
    const float v = data[i];
    if (v == 0) atomicAdd(zeros, 1ULL);
    else if (fabsf(v) < 1.17549435e-38f) atomicAdd(subnormal, 1ULL);
  }
}

// C = A B, row-major, 32x32 tiles in shared memory, one element per thread.
__global__ void tiled(int n, const float *a, const float *b, float *c) {
  __shared__ float as[32][32], bs[32][33];
  const int row = blockIdx.y * 32 + threadIdx.y, col = blockIdx.x * 32 + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < n; t += 32) {
    as[threadIdx.y][threadIdx.x] = a[static_cast<std::size_t>(row) * n + t + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[static_cast<std::size_t>(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int q = 0; q < 32; ++q) sum += as[threadIdx.y][q] * bs[q][threadIdx.x];
    __syncthreads();
  }
  c[static_cast<std::size_t>(row) * n + col] = sum;
}

enum Gemm { kCublasFp32, kCublasTf32, kTiled, kGemms };
const char *const kGemmNames[kGemms] = {"cublas fp32", "cublas tf32", "tiled 32x32"};

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096, reps = argc > 2 ? std::atoi(argv[2]) : 50;
  if (n % 32 != 0) return std::fprintf(stderr, "SIZE must be a multiple of 32\n"), 2;
  const std::size_t count = static_cast<std::size_t>(n) * n;
  float *a[kKinds], *b[kKinds], *c = nullptr;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int k = 0; k < kKinds; ++k) {
    check(cudaMalloc(&a[k], count * 4), "cudaMalloc");
    check(cudaMalloc(&b[k], count * 4), "cudaMalloc");
    std::vector<float> fill_ms;
    for (int r = 0; r < 5; ++r) {  // the first also warms up
      cudaEventRecord(start);
      fill<<<4096, 256>>>(a[k], n, n, 12345, hpcreward::Operand::a, static_cast<Kind>(k));
      fill<<<4096, 256>>>(b[k], n, n, 12345, hpcreward::Operand::b, static_cast<Kind>(k));
      cudaEventRecord(stop);
      check(cudaEventSynchronize(stop), "fill");
      float t = 0;
      cudaEventElapsedTime(&t, start, stop);
      if (r > 0) fill_ms.push_back(t);
    }
    std::sort(fill_ms.begin(), fill_ms.end());
    std::printf("fill of A and B  %-10s %8.3f ms (median of 4)\n", kNames[k], fill_ms[fill_ms.size() / 2]);
  }
  check(cudaMalloc(&c, count * 4), "cudaMalloc");
  unsigned long long *special = nullptr;
  check(cudaMallocManaged(&special, 2 * sizeof *special), "cudaMallocManaged");
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float one = 1, zero = 0;
  const auto call = [&](Gemm g, int k) {
    if (g == kTiled) {
      tiled<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(n, a[k], b[k], c);
      return;
    }
    cublasSetMathMode(handle, g == kCublasTf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
    // Row-major C = A B is column-major C^T = B^T A^T.
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b[k], n, a[k], n, &zero, c, n);
  };
  std::printf("%d^3, median of %d calls per line, distributions interleaved\n", n, reps);
  for (int g = 0; g < kGemms; ++g) {
    std::vector<float> ms[kKinds];
    for (int warm = 0; warm < 20; ++warm) call(static_cast<Gemm>(g), warm % kKinds);
    check(cudaDeviceSynchronize(), "warm-up");
    for (int r = 0; r < reps; ++r)
      for (int k = 0; k < kKinds; ++k) {
        cudaEventRecord(start);
        call(static_cast<Gemm>(g), k);
        cudaEventRecord(stop);
        check(cudaEventSynchronize(stop), "call");
        float t = 0;
        cudaEventElapsedTime(&t, start, stop);
        ms[k].push_back(t);
      }
    for (int k = 0; k < kKinds; ++k) {
      std::sort(ms[k].begin(), ms[k].end());
      special[0] = special[1] = 0;
      count_special<<<4096, 256>>>(a[k], count, &special[0], &special[1]);
      count_special<<<4096, 256>>>(b[k], count, &special[0], &special[1]);
      check(cudaDeviceSynchronize(), "count");
      const float median = ms[k][ms[k].size() / 2];
      std::printf("%-12s %-10s %8.3f ms %7.2f TFLOPS  zeros %5.2f%%  subnormal %5.2f%%\n", kGemmNames[g], kNames[k],
                  median, 2.0 * n * n * n / (median * 1e-3) / 1e12, 100.0 * special[0] / (2.0 * count),
                  100.0 * special[1] / (2.0 * count));
    }
  }
  return 0;
}
