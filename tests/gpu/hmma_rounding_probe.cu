// A probe, not built with the project: how a tensor core's fp16 accumulation rounds, against
// the models tests/bench_node/accumulation_sim.hpp simulates (docs/reward-integrity.md,
// "Accumulation precision"). WMMA 16x16x16 steps (HMMA.16816 on sm_80 and later, as CUDA-L2's
// SM80_16x8x16_F16F16F16F16 atoms), fp16 operands uniform in [-1, 1) as the harness draws them.
//   1. One step, D = A B + C with C an fp16 accumulator's size after t steps (t random), each
//      element of D against: the exact sum rounded to nearest once (rn), toward zero (rz), the
//      exact sum truncated to fp32 then rounded to nearest (rz32 rn), and two steps of 8
//      products each rounded to nearest (k8); and the fp32 accumulator (rn, rz).
//   2. A chain of K / 16 steps on one fp16 accumulator, against an accumulator rounded to
//      nearest (or toward zero) after each step: the share of elements equal to each, and the
//      error's root mean square over sqrt(sum (a b)^2), in units of 2^-11.
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/hmma_rounding_probe tests/gpu/hmma_rounding_probe.cu
//   /tmp/hmma_rounding_probe [TILES=4096] [K=4096]
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using namespace nvcuda;

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// One warp per tile: D = A B + C, A 16x16 row-major, B 16x16 row-major, C and D 16x16.
template <typename Acc>
__global__ void one_step(const __half *a, const __half *b, const Acc *c, Acc *d, int tiles) {
  const int tile = blockIdx.x;
  if (tile >= tiles) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> fc;
  wmma::load_matrix_sync(fa, a + tile * 256, 16);
  wmma::load_matrix_sync(fb, b + tile * 256, 16);
  wmma::load_matrix_sync(fc, c + tile * 256, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d + tile * 256, fc, 16, wmma::mem_row_major);
}

// One warp per tile: D = A B over k, A 16 x k row-major, B k x 16 row-major, an fp16
// accumulator from zero through k / 16 steps.
__global__ void chain(const __half *a, const __half *b, __half *d, int k) {
  const int tile = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, __half> fc;
  wmma::fill_fragment(fc, __float2half(0.0f));
  const __half *at = a + static_cast<std::size_t>(tile) * 16 * k, *bt = b + static_cast<std::size_t>(tile) * k * 16;
  for (int p = 0; p < k; p += 16) {
    wmma::load_matrix_sync(fa, at + p, k);
    wmma::load_matrix_sync(fb, bt + static_cast<std::size_t>(p) * 16, 16);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(d + tile * 256, fc, 16, wmma::mem_row_major);
}

double round_to(double v, int bits, int min_exponent, bool toward_zero) {
  if (v == 0) return 0;
  const int e = std::max(std::ilogb(v), min_exponent);
  const double ulp = std::ldexp(1.0, e - bits), steps = v / ulp;
  return (toward_zero ? std::trunc(steps) : std::nearbyint(steps)) * ulp;
}
double rn16(double v) { return round_to(v, 10, -14, false); }
double rz16(double v) { return round_to(v, 10, -14, true); }
double rn32(double v) { return round_to(v, 23, -126, false); }
double rz32(double v) { return round_to(v, 23, -126, true); }

std::uint64_t state = 0x9e3779b97f4a7c15ULL;
double uniform() {  // [-1, 1)
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

template <typename T>
T *to_device(const std::vector<T> &host) {
  T *device = nullptr;
  check(cudaMalloc(&device, host.size() * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "copy in");
  return device;
}

}  // namespace

int main(int argc, char **argv) {
  const int tiles = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int k = argc > 2 ? std::atoi(argv[2]) : 4096;
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  std::printf("device %s (sm_%d%d), %d tiles, chain k = %d\n", prop.name, prop.major, prop.minor, tiles, k);

  // 1. One step.
  const std::size_t n = static_cast<std::size_t>(tiles) * 256;
  std::vector<__half> a(n), b(n), c16(n);
  std::vector<float> c32(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = __double2half(uniform()), b[i] = __double2half(uniform());
  for (std::size_t i = 0; i < n; ++i) {
    const double t = 1 + std::floor((uniform() + 1) * 512);  // the accumulator after t steps
    const double value = uniform() * std::sqrt(16 * t / 3.0);
    c16[i] = __double2half(value);
    c32[i] = static_cast<float>(value);
  }
  __half *da = to_device(a), *db = to_device(b), *dc16 = to_device(c16), *dd16 = to_device(c16);
  float *dc32 = to_device(c32), *dd32 = to_device(c32);
  one_step<__half><<<tiles, 32>>>(da, db, dc16, dd16, tiles);
  one_step<float><<<tiles, 32>>>(da, db, dc32, dd32, tiles);
  check(cudaDeviceSynchronize(), "one step");
  std::vector<__half> d16(n);
  std::vector<float> d32(n);
  check(cudaMemcpy(d16.data(), dd16, n * sizeof(__half), cudaMemcpyDeviceToHost), "copy out");
  check(cudaMemcpy(d32.data(), dd32, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
  long rn = 0, rz = 0, rz32rn = 0, k8 = 0, f_rn = 0, f_rz = 0, exact16 = 0, exact32 = 0;
  for (int tile = 0; tile < tiles; ++tile)
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        const std::size_t e = static_cast<std::size_t>(tile) * 256 + i * 16 + j;
        double low = 0, high = 0;
        for (int p = 0; p < 16; ++p) {
          const double product = static_cast<double>(__half2float(a[tile * 256 + i * 16 + p])) *
                                 __half2float(b[tile * 256 + p * 16 + j]);
          (p < 8 ? low : high) += product;
        }
        const double sum16 = static_cast<double>(__half2float(c16[e])) + low + high;
        const double sum32 = static_cast<double>(c32[e]) + low + high;
        const double got16 = __half2float(d16[e]), got32 = d32[e];
        rn += got16 == rn16(sum16);
        rz += got16 == rz16(sum16);
        rz32rn += got16 == rn16(rz32(sum16));
        k8 += got16 == rn16(rn16(static_cast<double>(__half2float(c16[e])) + low) + high);
        exact16 += rn16(sum16) == rz16(sum16);
        f_rn += got32 == rn32(sum32);
        f_rz += got32 == rz32(sum32);
        exact32 += rn32(sum32) == rz32(sum32);
      }
  const double total = static_cast<double>(n);
  std::printf("one step, fp16 accumulator: equal to rn %.4f, rz %.4f, rz32 then rn %.4f, two of 8 rn %.4f "
              "(rn and rz agree on %.4f)\n",
              rn / total, rz / total, rz32rn / total, k8 / total, exact16 / total);
  std::printf("one step, fp32 accumulator: equal to rn %.4f, rz %.4f (agree on %.4f)\n", f_rn / total, f_rz / total,
              exact32 / total);

  // 2. A chain over k.
  const int chains = std::min(tiles, 512);
  std::vector<__half> ca(static_cast<std::size_t>(chains) * 16 * k), cb(static_cast<std::size_t>(chains) * k * 16);
  for (auto &v : ca) v = __double2half(uniform());
  for (auto &v : cb) v = __double2half(uniform());
  __half *dca = to_device(ca), *dcb = to_device(cb), *dcd = nullptr;
  check(cudaMalloc(&dcd, static_cast<std::size_t>(chains) * 256 * sizeof(__half)), "cudaMalloc");
  chain<<<chains, 32>>>(dca, dcb, dcd, k);
  check(cudaDeviceSynchronize(), "chain");
  std::vector<__half> cd(static_cast<std::size_t>(chains) * 256);
  check(cudaMemcpy(cd.data(), dcd, cd.size() * sizeof(__half), cudaMemcpyDeviceToHost), "copy out");
  long same_rn = 0, same_rz = 0;
  double err_sq = 0, rn_sq = 0, rz_sq = 0;
  for (int tile = 0; tile < chains; ++tile)
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double exact = 0, rss = 0, acc_rn = 0, acc_rz = 0;
        for (int p0 = 0; p0 < k; p0 += 16) {
          double step = 0;
          for (int p = p0; p < p0 + 16; ++p) {
            const double product =
                static_cast<double>(__half2float(ca[(static_cast<std::size_t>(tile) * 16 + i) * k + p])) *
                __half2float(cb[(static_cast<std::size_t>(tile) * k + p) * 16 + j]);
            step += product;
            rss += product * product;
          }
          exact += step;
          acc_rn = rn16(acc_rn + step);
          acc_rz = rz16(acc_rz + step);
        }
        const double got = __half2float(cd[static_cast<std::size_t>(tile) * 256 + i * 16 + j]);
        same_rn += got == acc_rn;
        same_rz += got == acc_rz;
        err_sq += (got - exact) * (got - exact) / rss;
        rn_sq += (acc_rn - exact) * (acc_rn - exact) / rss;
        rz_sq += (acc_rz - exact) * (acc_rz - exact) / rss;
      }
  const double elements = chains * 256.0, u = std::ldexp(1.0, -11);
  std::printf("chain of %d steps: equal to rn every step %.4f, rz every step %.4f; error / sqrt(sum (ab)^2), "
              "root mean square: device %.3f, rn %.3f, rz %.3f (units of 2^-11)\n",
              k / 16, same_rn / elements, same_rz / elements, std::sqrt(err_sq / elements) / u,
              std::sqrt(rn_sq / elements) / u, std::sqrt(rz_sq / elements) / u);
  return 0;
}
