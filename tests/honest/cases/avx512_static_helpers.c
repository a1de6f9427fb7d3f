// stage: avx512
// idioms: AVX-512 intrinsics in static inline helpers, a masked tail instead of a scalar loop,
// restrict, size_t indexing
#include <immintrin.h>
#include <stddef.h>

static inline __mmask8 tail_mask(size_t count) { return (__mmask8)((1u << count) - 1u); }

// c[0..count) += a * b[0..count), count <= 8
static inline void fma8(double a, const double *restrict b, double *restrict c, size_t count) {
  const __mmask8 mask = tail_mask(count);
  const __m512d sum = _mm512_fmadd_pd(_mm512_set1_pd(a), _mm512_maskz_loadu_pd(mask, b),
                                      _mm512_maskz_loadu_pd(mask, c));
  _mm512_mask_storeu_pd(c, mask, sum);
}

static void row_update(double a, const double *restrict b, double *restrict c, size_t n) {
  size_t j = 0;
  for (; j + 8 <= n; j += 8)
    _mm512_storeu_pd(c + j, _mm512_fmadd_pd(_mm512_set1_pd(a), _mm512_loadu_pd(b + j), _mm512_loadu_pd(c + j)));
  if (j < n) fma8(a, b + j, c + j, n - j);
}

void matmul(int m, int n, int k, const double *restrict A, const double *restrict B, double *restrict C) {
  const size_t N = (size_t)n, K = (size_t)k;
  for (size_t i = 0; i < (size_t)m; ++i) {
    double *restrict c = C + i * N;
    for (size_t j = 0; j < N; ++j) c[j] = 0.0;
    for (size_t p = 0; p < K; ++p) row_update(A[i * K + p], B + p * N, c, N);
  }
}
