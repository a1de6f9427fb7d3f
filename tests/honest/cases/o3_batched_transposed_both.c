// stage: o3
// problem: dgemm-tt-batched-8x128
// idioms: a batch of A^T B^T products, both operands given transposed
void matmul(int batch, int m, int n, int k, const double *A, const double *B, double *C) {
  for (int q = 0; q < batch; ++q) {
    const double *a = A + (long)q * m * k, *b = B + (long)q * k * n;
    double *c = C + (long)q * m * n;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0.0;
        for (int p = 0; p < k; ++p) s += a[p * m + i] * b[j * k + p];
        c[i * n + j] = s;
      }
  }
}
