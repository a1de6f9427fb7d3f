// stage: blocking
// idioms: tiles with a packed, 64-byte aligned copy of a B panel in aligned_alloc scratch
// per thread, #pragma omp parallel for collapse(2) over C tiles, AVX-512 in a static helper,
// fma() for the tail
#include <immintrin.h>
#include <math.h>
#include <stdlib.h>

#define TI 64
#define TJ 64
#define TK 128

static inline void tile_row(double a, const double *restrict b, double *restrict c, int width) {
  int j = 0;
  for (; j + 8 <= width; j += 8)
    _mm512_storeu_pd(c + j, _mm512_fmadd_pd(_mm512_set1_pd(a), _mm512_load_pd(b + j), _mm512_loadu_pd(c + j)));
  for (; j < width; ++j) c[j] = fma(a, b[j], c[j]);
}

void matmul(int m, int n, int k, const double *restrict A, const double *restrict B, double *restrict C) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int ii = 0; ii < m; ii += TI)
    for (int jj = 0; jj < n; jj += TJ) {
      double *panel = aligned_alloc(64, (size_t)TK * TJ * sizeof(double));
      const int i_end = ii + TI < m ? ii + TI : m, width = jj + TJ < n ? TJ : n - jj;
      for (int i = ii; i < i_end; ++i)
        for (int j = 0; j < width; ++j) C[(size_t)i * n + jj + j] = 0.0;
      for (int pp = 0; pp < k; pp += TK) {
        const int depth = pp + TK < k ? TK : k - pp;
        for (int p = 0; p < depth; ++p)
          for (int j = 0; j < width; ++j) panel[(size_t)p * TJ + j] = B[(size_t)(pp + p) * n + jj + j];
        for (int i = ii; i < i_end; ++i)
          for (int p = 0; p < depth; ++p)
            tile_row(A[(size_t)i * k + pp + p], panel + (size_t)p * TJ, C + (size_t)i * n + jj, width);
      }
      free(panel);
    }
}
