/* Plain i-k-j that only talks about cache blocking: in comments and a string, never in code.
   for (int ii = 0; ii < m; ii += 64)
     for (int i = ii; i < ii + 64 && i < m; ++i) ... */
// TILE 64: for (jj = 0; jj < n; jj += TILE) for (j = jj; j < jj + TILE; ++j)
static const char kPlan[] = "for (ii = 0; ii < m; ii += 64) for (i = ii; i < ii + 64; ++i)";

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  (void)kPlan;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double a = A[i * k + p];
      for (int j = 0; j < n; ++j) C[i * n + j] += a * B[p * n + j];
    }
  }
}
