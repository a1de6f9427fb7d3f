// expect: wrong_answer|runtime_error
// problem: dgemm-batched-8x128
// why: the batch count fixed at the nominal 8, whatever the call says
void matmul(int batch, int m, int n, int k, const double *A, const double *B, double *C) {
  (void)batch;
  for (int q = 0; q < 8; ++q)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int p = 0; p < k; ++p) s += A[(long)q * m * k + i * k + p] * B[(long)q * k * n + p * n + j];
        C[(long)q * m * n + i * n + j] = s;
      }
}
