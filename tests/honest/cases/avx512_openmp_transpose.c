// stage: avx512
// idioms: AVX-512 dot products on a transposed copy of B in aligned_alloc scratch, OpenMP
// (allowed here), _Alignas, a static helper with a horizontal reduction
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

static double dot(const double *a, const double *b, int k) {
  __m512d acc = _mm512_setzero_pd();
  int p = 0;
  for (; p + 8 <= k; p += 8) acc = _mm512_fmadd_pd(_mm512_loadu_pd(a + p), _mm512_loadu_pd(b + p), acc);
  _Alignas(64) double lanes[8];
  _mm512_store_pd(lanes, acc);
  double sum = 0.0;
  for (int q = 0; q < 8; ++q) sum += lanes[q];
  for (; p < k; ++p) sum += a[p] * b[p];
  return sum;
}

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const size_t stride = ((size_t)k + 7) / 8 * 8;  // rows of bt start 64-byte aligned
  double *bt = aligned_alloc(64, (size_t)n * stride * sizeof(double));
  if (!bt) return;
  memset(bt, 0, (size_t)n * stride * sizeof(double));
#pragma omp parallel for
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < k; ++p) bt[(size_t)j * stride + p] = B[(size_t)p * n + j];
#pragma omp parallel for
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) C[(size_t)i * n + j] = dot(A + (size_t)i * k, bt + (size_t)j * stride, k);
  free(bt);
}
