/* Correct OpenMP i-k-j: rows of C shared out among the threads. */
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double a = A[i * k + p];
      for (int j = 0; j < n; ++j) C[i * n + j] += a * B[p * n + j];
    }
  }
}
