/* Correct products scaled by 1e300 (a units bug): every element is finite, every square of
   an error overflows a double. */
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
    for (int j = 0; j < n; ++j) C[i * n + j] *= 1e300;
  }
}
