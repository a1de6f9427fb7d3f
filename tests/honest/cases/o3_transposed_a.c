// stage: o3
// problem: dgemm-tn-256
// idioms: A given transposed (k x m), read row by row of the transpose: C's rows built as a sum of B's rows
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m * n; ++i) C[i] = 0.0;
  for (int p = 0; p < k; ++p)
    for (int i = 0; i < m; ++i) {
      const double a = A[p * m + i];
      for (int j = 0; j < n; ++j) C[i * n + j] += a * B[p * n + j];
    }
}
