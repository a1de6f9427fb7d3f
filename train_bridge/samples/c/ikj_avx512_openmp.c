// AVX-512 intrinsics and OpenMP: the AVX-512 i-k-j kernel with the rows of C shared out among threads.
#include <immintrin.h>

void matmul(int m, int n, int k, const double *restrict A, const double *restrict B,
            double *restrict C) {
  const int n8 = n - n % 8;  // columns done 8 at a time; the rest one by one
#pragma omp parallel for schedule(static)
  for (int i = 0; i < m; ++i) {
    double *restrict c = C + (long)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double a = A[(long)i * k + p];
      const __m512d a8 = _mm512_set1_pd(a);
      const double *restrict b = B + (long)p * n;
      for (int j = 0; j < n8; j += 8)
        _mm512_storeu_pd(c + j, _mm512_fmadd_pd(a8, _mm512_loadu_pd(b + j), _mm512_loadu_pd(c + j)));
      for (int j = n8; j < n; ++j) c[j] += a * b[j];
    }
  }
}
