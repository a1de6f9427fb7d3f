// stage: o3
// problem: dgemm-nt-256
// idioms: B given transposed (n x k): every C element a dot product of two contiguous rows
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const double *a = A + (long)i * k, *b = B + (long)j * k;
      double s = 0.0;
      for (int p = 0; p < k; ++p) s += a[p] * b[p];
      C[(long)i * n + j] = s;
    }
}
