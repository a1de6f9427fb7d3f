// expect: wrong_answer
// problem: dgemm-batched-8x128
// why: one product of a batch computed, the other seven left as the harness poisoned them
void matmul(int batch, int m, int n, int k, const double *A, const double *B, double *C) {
  (void)batch;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s;
    }
}
