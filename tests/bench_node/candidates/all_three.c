/* OpenMP, AVX-512 intrinsics and cache blocking at once: row tiles of C shared out among
   threads, 48-deep panels of k, 8 columns per FMA and a scalar tail for n % 8. */
#include <immintrin.h>
enum { TILE = 48 };

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const int n8 = n - n % 8;
#pragma omp parallel for
  for (int ii = 0; ii < m; ii += TILE) {
    const int iend = ii + TILE < m ? ii + TILE : m;
    for (int i = ii; i < iend; ++i)
      for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int pp = 0; pp < k; pp += TILE) {
      const int pend = pp + TILE < k ? pp + TILE : k;
      for (int i = ii; i < iend; ++i)
        for (int p = pp; p < pend; ++p) {
          const __m512d a8 = _mm512_set1_pd(A[i * k + p]);
          for (int j = 0; j < n8; j += 8)
            _mm512_storeu_pd(C + i * n + j,
                             _mm512_fmadd_pd(a8, _mm512_loadu_pd(B + p * n + j),
                                             _mm512_loadu_pd(C + i * n + j)));
          for (int j = n8; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
        }
    }
  }
}
