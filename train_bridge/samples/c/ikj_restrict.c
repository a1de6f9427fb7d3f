// i-k-j with restrict pointers: the compiler may keep C's row in registers.
void matmul(int m, int n, int k, const double *restrict A, const double *restrict B,
            double *restrict C) {
  for (int i = 0; i < m; ++i) {
    double *restrict c = C + (long)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double a = A[(long)i * k + p];
      const double *restrict b = B + (long)p * n;
      for (int j = 0; j < n; ++j) c[j] += a * b[j];
    }
  }
}
