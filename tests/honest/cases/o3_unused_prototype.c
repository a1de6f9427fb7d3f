// stage: o3
// idioms: a stray prototype of a function the file neither defines nor calls (left over
// from an earlier version), an i-k-j loop
double dot(const double *x, const double *y, int n);

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[(long)i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[(long)i * n + j] += A[(long)i * k + p] * B[(long)p * n + j];
  }
}
