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

inline constexpr const char *kBroken = "void gemm(int m { for (;; ) }} #pragma omp parallel";

}  // namespace hpcreward::techniques::testing
