// Single precision i-k-j for the sgemm problems.
void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0f;
    for (int p = 0; p < k; ++p) {
      const float a = A[i * k + p];
      for (int j = 0; j < n; ++j) C[i * n + j] += a * B[p * n + j];
    }
  }
}
