#pragma once
// Small GEMM candidates (row-major C[m x n] += A[m x k] * B[k x n]) for the detection tests.
namespace hpcreward::techniques::testing {

inline constexpr const char *kPlainIjk = R"(
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int p = 0; p < k; ++p)
        sum += A[i * k + p] * B[p * n + j];
      C[i * n + j] += sum;
    }
}
)";

inline constexpr const char *kPlainIkj = R"(
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  int i, j, p;
  for (i = 0; i < m; i++)
    for (p = 0; p < k; p++) {
      const double a = A[i * k + p];
      for (j = 0; j < n; j++)
        C[i * n + j] += a * B[p * n + j];
    }
}
)";

// Everything only in comments and strings.
inline constexpr const char *kMentionsOnly = R"(
#include <stdio.h>
/* #pragma omp parallel for
   __m512d v = _mm512_fmadd_pd(a, b, c);
   for (ii = 0; ii < n; ii += 64) for (i = ii; i < ii + 64; ++i) */
// #pragma omp parallel for
static const char *note = "#pragma omp parallel for _mm512_add_pd __m512d GOMP_parallel";
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  if (m < 0) puts(note);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j)
        C[i * n + j] += A[i * k + p] * B[p * n + j];
}
)";

inline constexpr const char *kOpenmp = R"(
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
#pragma omp parallel for
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j)
        C[i * n + j] += A[i * k + p] * B[p * n + j];
}
)";

inline constexpr const char *kAvx512 = R"(
#include <immintrin.h>
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) {
      __m512d a = _mm512_set1_pd(A[i * k + p]);
      int j = 0;
      for (; j + 8 <= n; j += 8) {
        __m512d c = _mm512_loadu_pd(C + i * n + j);
        c = _mm512_fmadd_pd(a, _mm512_loadu_pd(B + p * n + j), c);
        _mm512_storeu_pd(C + i * n + j, c);
      }
      for (; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
    }
}
)";

// Two tiled dimensions (i, j) with the tile as a macro and a const.
inline constexpr const char *kBlocked2 = R"(
#define TI 64
static const int TJ = 32;
static int min(int a, int b) { return a < b ? a : b; }
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int ii = 0; ii < m; ii += TI)
    for (int jj = 0; jj < n; jj += TJ)
      for (int i = ii; i < min(ii + TI, m); ++i)
        for (int p = 0; p < k; ++p)
          for (int j = jj; j < min(jj + TJ, n); ++j)
            C[i * n + j] += A[i * k + p] * B[p * n + j];
}
)";

// Three tiled dimensions, literal sizes, bounds precomputed.
inline constexpr const char *kBlocked3 = R"(
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int ii = 0; ii < m; ii += 128)
    for (int pp = 0; pp < k; pp += 256)
      for (int jj = 0; jj < n; jj = jj + 64) {
        int iend = ii + 128 < m ? ii + 128 : m;
        int pend = pp + 256 < k ? pp + 256 : k;
        int jend = jj + 64 < n ? jj + 64 : n;
        for (int i = ii; i < iend; i++)
          for (int p = pp; p < pend; p++)
            for (int j = jj; j < jend; j++)
              C[i * n + j] += A[i * k + p] * B[p * n + j];
      }
}
)";

// Strided but not tiled: the inner loop does not start at the outer variable.
inline constexpr const char *kUnrolledNotTiled = R"(
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j + 4 <= n; j += 4) {
        C[i * n + j] += A[i * k + p] * B[p * n + j];
        C[i * n + j + 1] += A[i * k + p] * B[p * n + j + 1];
        C[i * n + j + 2] += A[i * k + p] * B[p * n + j + 2];
        C[i * n + j + 3] += A[i * k + p] * B[p * n + j + 3];
      }
}
)";

// All three at once, the intrinsics and tiles inside an OpenMP region (which libclang's
// cursors do not enter under -fopenmp).
inline constexpr const char *kAllThree = R"(
#include <immintrin.h>
enum { TILE = 48 };
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
#pragma omp parallel for
  for (int ii = 0; ii < m; ii += TILE)
    for (int i = ii; i < (ii + TILE < m ? ii + TILE : m); ++i)
      for (int p = 0; p < k; ++p) {
        __m512d a = _mm512_set1_pd(A[i * k + p]);
        for (int j = 0; j + 8 <= n; j += 8)
          _mm512_storeu_pd(C + i * n + j,
                           _mm512_fmadd_pd(a, _mm512_loadu_pd(B + p * n + j),
                                           _mm512_loadu_pd(C + i * n + j)));
      }
}
)";

// The loop body spelled with index macros.
inline constexpr const char *kMacroIndexed = R"(
#define A(i, p) A[(i) * k + (p)]
#define B(p, j) B[(p) * n + (j)]
#define C(i, j) C[(i) * n + (j)]
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j)
        C(i, j) += A(i, p) * B(p, j);
}
)";

// SSE2/SSE3 intrinsics (128-bit), no AVX-512.
inline constexpr const char *kSse3 = R"(
#include <pmmintrin.h>
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j + 2 <= n; j += 2) {
      __m128d sum = _mm_setzero_pd();
      for (int p = 0; p < k; ++p)
        sum = _mm_add_pd(sum, _mm_mul_pd(_mm_loaddup_pd(&A[i * k + p]), _mm_loadu_pd(&B[p * n + j])));
      _mm_storeu_pd(&C[i * n + j], sum);
    }
}
)";

// GotoBLAS: KC x MC block loops that pack, in one function; the micro-kernel in another.
inline constexpr const char *kGotoBlas = R"(
#define KC 256
#define MC 128
#define MR 4
#define NR 4
static int imin(int a, int b) { return a < b ? a : b; }
static void pack_A(int mb, int kb, const double *A, int lda, double *Apack) {
  for (int ir = 0; ir < mb; ir += MR)
    for (int p = 0; p < kb; ++p)
      for (int r = 0; r < MR; ++r) *Apack++ = A[(ir + r) * lda + p];
}
static void pack_B(int kb, int n, const double *B, int ldb, double *Bpack) {
  for (int jr = 0; jr < n; jr += NR)
    for (int p = 0; p < kb; ++p)
      for (int c = 0; c < NR; ++c) *Bpack++ = B[p * ldb + jr + c];
}
static void micro_kernel_4x4(int kb, const double *a, const double *b, double *C, int ldc) {
  for (int p = 0; p < kb; ++p)
    for (int r = 0; r < MR; ++r)
      for (int c = 0; c < NR; ++c) C[r * ldc + c] += a[p * MR + r] * b[p * NR + c];
}
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  static double Apack[MC * KC], Bpack[KC * 1024];
  for (int pc = 0; pc < k; pc += KC) {
    const int kb = imin(KC, k - pc);
    for (int ic = 0; ic < m; ic += MC) {
      int mb = imin(MC, m - ic);
      pack_A(mb, kb, &A[ic * k + pc], k, Apack);
      pack_B(kb, n, &B[pc * n], n, Bpack);
      for (int jr = 0; jr < n; jr += NR)
        for (int ir = 0; ir < mb; ir += MR)
          micro_kernel_4x4(kb, &Apack[ir * kb], &Bpack[jr * kb], &C[(ic + ir) * n + jr], n);
    }
  }
}
)";

// Register blocking through a helper: each 8-wide strip calls a kernel that runs over all of
// k. Nothing is split into cache blocks: not blocking.
inline constexpr const char *kStripCallsHelper = R"(
static void dot8(const double *a, const double *b, double *c, int k, int n) {
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < 8; ++j) c[j] += a[p] * b[p * n + j];
}
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j + 8 <= n; j += 8) dot8(&A[i * k], &B[j], &C[i * n + j], k, n);
}
)";

inline constexpr const char *kBroken = "void gemm(int m { for (;; ) }} #pragma omp parallel";

}  // namespace hpcreward::techniques::testing
