// Plain i-k-j that only mentions techniques, in comments and a string: detection must count none.
// Faster, someone said, with
// #pragma omp parallel for
// and c8 = _mm512_fmadd_pd(a8, _mm512_loadu_pd(b + j), c8) on __m512d, tiled as
// for (ii = 0; ii < m; ii += 64) for (i = ii; i < ii + 64; ++i)
static const char kWishList[] = "#pragma omp parallel for; _mm512_fmadd_pd(a8, b8, c8); __m512d";

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  (void)kWishList;
/*
#pragma omp parallel for
*/
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double a = A[i * k + p];  /* _mm512_set1_pd(a) */
      for (int j = 0; j < n; ++j) C[i * n + j] += a * B[p * n + j];
    }
  }
}
