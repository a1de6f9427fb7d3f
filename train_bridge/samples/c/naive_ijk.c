// The textbook triple loop: i-j-k, strided access to B.
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
      C[i * n + j] = sum;
    }
}
