// Everything at once: cache blocking (row tiles of C x k panels), OpenMP over row tiles, AVX-512 FMAs.
#include <immintrin.h>

#define TILE_I 32
#define TILE_K 128
static int min_int(int a, int b) { return a < b ? a : b; }

void matmul(int m, int n, int k, const double *restrict A, const double *restrict B,
            double *restrict C) {
  const int n8 = n - n % 8;  // columns done 8 at a time; the rest one by one
#pragma omp parallel for schedule(static)
  for (int ii = 0; ii < m; ii += TILE_I) {
    const int i_end = min_int(ii + TILE_I, m);
    for (int i = ii; i < i_end; ++i)
      for (int j = 0; j < n; ++j) C[(long)i * n + j] = 0.0;
    for (int pp = 0; pp < k; pp += TILE_K) {
      const int p_end = min_int(pp + TILE_K, k);
      for (int i = ii; i < i_end; ++i) {
        double *restrict c = C + (long)i * n;
        for (int p = pp; p < p_end; ++p) {
          const double a = A[(long)i * k + p];
          const __m512d a8 = _mm512_set1_pd(a);
          const double *restrict b = B + (long)p * n;
          for (int j = 0; j < n8; j += 8)
            _mm512_storeu_pd(c + j, _mm512_fmadd_pd(a8, _mm512_loadu_pd(b + j), _mm512_loadu_pd(c + j)));
          for (int j = n8; j < n; ++j) c[j] += a * b[j];
        }
      }
    }
  }
}
