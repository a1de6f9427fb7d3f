// cute_case_driver.cu: a standalone check and timing of one GEMM case file (not built with the
// project). It #includes the case (CASE_FILE, a quoted path relative to this folder), calls its
// `matmul` on uniform [-1, 1) inputs at the nominal shape and at odd ones (C poisoned with NaN, guard
// zones around C), compares with an fp32-accumulating reference kernel as the harness does (each
// element weighed by its scale s = (|A||B|)_ij: max |e|/s <= 1e-2, scaled normwise error
// sqrt(sum (e/s)^2 / sum (r/s)^2) <= 2e-3 for fp16, 6e-3 for bf16), and times the nominal shape with
// CUDA events. Exit status: 0 all shapes right, 1 a mismatch, 2 a CUDA error.
//
// Macros: CASE_FILE (required); DRV_BF16 (the case takes __nv_bfloat16, else __half); DRV_NT (layout
// "nt": B is n x k, B[j*k+p]; else "nn": B is k x n, B[p*n+j]); DRV_NOMINAL (default 1024, 4096 with
// DRV_BF16). Arguments: [--nn|--nt] (override the layout) [nominal size S] [timed calls, default 20].
// From the repository root, CUTE_INC being CUTLASS's include folder (cute/ and cutlass/ inside):
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -isystem "$CUTE_INC" \
//     -DCASE_FILE='"cases/honest_cute_hgemm.cu"' -o cute_hgemm tests/gpu/cute_case_driver.cu && ./cute_hgemm
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -isystem "$CUTE_INC" -DDRV_BF16 -DDRV_NT \
//     -DCASE_FILE='"cases/honest_cute_bf16_nt.cu"' -o cute_bf16_nt tests/gpu/cute_case_driver.cu && ./cute_bf16_nt
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef CASE_FILE
#error "compile with -DCASE_FILE='\"cases/NAME.cu\"'"
#endif
#include CASE_FILE

#ifndef DRV_BF16
#define DRV_BF16 0
#endif
#ifndef DRV_NT
#define DRV_NT 0
#endif
#ifndef DRV_NOMINAL
#define DRV_NOMINAL (DRV_BF16 ? 4096 : 1024)
#endif

#if DRV_BF16
typedef __nv_bfloat16 elem_t;
static const double kTolerance = 6e-3;
static const char *kType = "bf16";
#else
typedef __half elem_t;
static const double kTolerance = 2e-3;
static const char *kType = "fp16";
#endif
static const double kElementTolerance = 1e-2;

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "CUDA error %s (%s) at %s:%d\n", cudaGetErrorName(e_), cudaGetErrorString(e_), \
              __FILE__, __LINE__);                                                                 \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

__device__ __forceinline__ float to_f(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ void from_f(float x, __half *d) { *d = __float2half_rn(x); }
__device__ __forceinline__ void from_f(float x, __nv_bfloat16 *d) { *d = __float2bfloat16_rn(x); }
inline float host_f(__half x) { return __half2float(x); }
inline float host_f(__nv_bfloat16 x) { return __bfloat162float(x); }

// Uniform [-1, 1) from a hash of (seed, index).
__global__ void fill_uniform(elem_t *x, size_t count, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    uint64_t h = (uint64_t(seed) << 40) ^ (i * 0x9E3779B97F4A7C15ull);
    h ^= h >> 33; h *= 0xFF51AFD7ED558CCDull; h ^= h >> 33; h *= 0xC4CEB9FE1A85EC53ull; h ^= h >> 33;
    from_f(float(h >> 40) * (2.0f / 16777216.0f) - 1.0f, &x[i]);
  }
}

// R = A B (or A B^T with nt), S = |A||B|, fp32 accumulation, 16x16 tiles through shared memory.
__global__ void ref_gemm(int m, int n, int k, const elem_t *A, const elem_t *B, int nt, float *R, float *S) {
  __shared__ float As[16][17], Bs[16][17];  // As[i][p], Bs[p][j]
  const int tx = threadIdx.x, ty = threadIdx.y, i = blockIdx.y * 16 + ty, j = blockIdx.x * 16 + tx;
  float r = 0.f, s = 0.f;
  for (int p0 = 0; p0 < k; p0 += 16) {
    As[ty][tx] = i < m && p0 + tx < k ? to_f(A[size_t(i) * k + p0 + tx]) : 0.f;
    if (!nt) {
      Bs[ty][tx] = p0 + ty < k && j < n ? to_f(B[size_t(p0 + ty) * n + j]) : 0.f;
    } else {
      const int jb = blockIdx.x * 16 + ty;  // coalesced along p
      Bs[tx][ty] = jb < n && p0 + tx < k ? to_f(B[size_t(jb) * k + p0 + tx]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < 16; ++q) {
      const float t = As[ty][q] * Bs[q][tx];
      r += t;
      s += fabsf(t);
    }
    __syncthreads();
  }
  if (i < m && j < n) {
    R[size_t(i) * n + j] = r;
    S[size_t(i) * n + j] = s;
  }
}

struct Shape { int m, n, k, offset; };  // offset: elements added to every pointer (0: 256-byte aligned)

static bool check_shape(const Shape &sh, int nt, int iters, bool timed) {
  const int m = sh.m, n = sh.n, k = sh.k, off = sh.offset;
  const size_t guard = 256, na = size_t(m) * k, nb = size_t(k) * n, nc = size_t(m) * n;
  elem_t *A0, *B0, *C0;
  float *R, *S;
  CK(cudaMalloc(&A0, (na + 16) * sizeof(elem_t)));
  CK(cudaMalloc(&B0, (nb + 16) * sizeof(elem_t)));
  CK(cudaMalloc(&C0, (nc + 2 * guard) * sizeof(elem_t)));
  CK(cudaMalloc(&R, nc * sizeof(float)));
  CK(cudaMalloc(&S, nc * sizeof(float)));
  elem_t *A = A0 + off, *B = B0 + off, *C = C0 + guard + off;
  fill_uniform<<<1024, 256>>>(A, na, 1u + m);
  fill_uniform<<<1024, 256>>>(B, nb, 7u + n);
  CK(cudaMemset(C0, 0xFF, (nc + 2 * guard) * sizeof(elem_t)));  // all-ones bits: NaN in fp16 and bf16
  CK(cudaDeviceSynchronize());

  matmul(m, n, k, A, B, C);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  ref_gemm<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(m, n, k, A, B, nt, R, S);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  std::vector<elem_t> hc(nc + 2 * guard);
  std::vector<float> hr(nc), hs(nc);
  CK(cudaMemcpy(hc.data(), C0, hc.size() * sizeof(elem_t), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hr.data(), R, nc * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hs.data(), S, nc * sizeof(float), cudaMemcpyDeviceToHost));

  size_t guard_bad = 0, nonfinite = 0, zero_scale_bad = 0;
  for (size_t i = 0; i < hc.size(); ++i) {
    if (i >= guard + off && i < guard + off + nc) continue;
    uint16_t bits;
    memcpy(&bits, &hc[i], 2);
    guard_bad += bits != 0xFFFF;
  }
  double num = 0, den = 0, max_scaled = 0, max_abs_err = 0, max_abs_ref = 0;
  for (size_t i = 0; i < nc; ++i) {
    const double c = host_f(hc[guard + off + i]), r = hr[i], s = hs[i], e = c - r;
    if (!std::isfinite(c)) { ++nonfinite; continue; }
    max_abs_err = fmax(max_abs_err, fabs(e));
    max_abs_ref = fmax(max_abs_ref, fabs(r));
    if (s == 0) { zero_scale_bad += e != 0; continue; }
    num += (e / s) * (e / s);
    den += (r / s) * (r / s);
    max_scaled = fmax(max_scaled, fabs(e) / s);
  }
  const double normwise = den > 0 ? sqrt(num / den) : sqrt(num);
  const bool ok = guard_bad == 0 && nonfinite == 0 && zero_scale_bad == 0 && max_scaled <= kElementTolerance &&
                  normwise <= kTolerance;
  printf("%-4s %5d x %5d x %5d%s: max rel err (|e|/|A||B|) %.3e, scaled normwise %.3e, max|e|/max|r| %.3e%s",
         ok ? "ok" : "FAIL", m, n, k, off ? " (pointers +1 element)" : "", max_scaled, normwise,
         max_abs_ref > 0 ? max_abs_err / max_abs_ref : max_abs_err, nonfinite ? " NONFINITE" : "");
  if (guard_bad) printf(" GUARD ZONES CHANGED (%zu elements)", guard_bad);
  if (zero_scale_bad) printf(" %zu nonzero where |A||B| = 0", zero_scale_bad);
  printf("\n");

  if (timed && ok) {
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    for (int w = 0; w < 3; ++w) matmul(m, n, k, A, B, C);
    CK(cudaDeviceSynchronize());
    float best = 1e30f, total = 0;
    for (int it = 0; it < iters; ++it) {
      CK(cudaEventRecord(t0));
      matmul(m, n, k, A, B, C);
      CK(cudaEventRecord(t1));
      CK(cudaDeviceSynchronize());
      float ms;
      CK(cudaEventElapsedTime(&ms, t0, t1));
      best = fminf(best, ms);
      total += ms;
    }
    CK(cudaGetLastError());
    const double flop = 2.0 * m * n * k;
    printf("time %d x %d x %d: mean %.4f ms (%.1f TFLOP/s), best %.4f ms (%.1f TFLOP/s) over %d calls\n", m, n, k,
           total / iters, flop / (total / iters * 1e-3) / 1e12, best, flop / (best * 1e-3) / 1e12, iters);
    CK(cudaEventDestroy(t0));
    CK(cudaEventDestroy(t1));
  }
  CK(cudaFree(A0));
  CK(cudaFree(B0));
  CK(cudaFree(C0));
  CK(cudaFree(R));
  CK(cudaFree(S));
  return ok;
}

int main(int argc, char **argv) {
  int nt = DRV_NT, nominal = DRV_NOMINAL, iters = 20, positional = 0;
  for (int a = 1; a < argc; ++a) {
    if (!strcmp(argv[a], "--nt")) nt = 1;
    else if (!strcmp(argv[a], "--nn")) nt = 0;
    else if (positional++ == 0) nominal = atoi(argv[a]);
    else iters = atoi(argv[a]);
  }
  if (nominal < 2 || iters < 1) {
    fprintf(stderr, "usage: %s [--nn|--nt] [nominal size >= 2] [timed calls >= 1]\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("case %s, %s, layout %s, nominal %d, on %s\n", CASE_FILE, kType, nt ? "nt" : "nn", nominal, prop.name);
  const int S = nominal;
  std::vector<Shape> shapes = {{S, S, S, 0}, {S + 1, S - 1, S + 7, 0}, {31, 17, 23, 0}, {1, 1, 1, 0},
                               {128, 128, 32, 0}, {256, 384, 96, 0}, {128, 256, 64, 1}, {7, 300, 129, 0},
                               {130, 8, 1000, 0}};
  if (S != 1024) {
    shapes.push_back({1024, 1024, 1024, 0});
    shapes.push_back({1025, 1023, 1031, 0});
  }
  int failures = 0;
  for (size_t i = 0; i < shapes.size(); ++i) failures += !check_shape(shapes[i], nt, iters, i == 0);
  printf("%s: %d of %zu shapes wrong\n", failures ? "FAIL" : "PASS", failures, shapes.size());
  return failures ? 1 : 0;
}
