// stage: o3
// idioms: variable-length arrays (a row buffer on the stack, pointer-to-VLA views of A, B, C)
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const double (*a)[k] = (const double (*)[k])A;
  const double (*b)[n] = (const double (*)[n])B;
  double (*c)[n] = (double (*)[n])C;
  double row[n];
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) row[j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) row[j] += a[i][p] * b[p][j];
    for (int j = 0; j < n; ++j) c[i][j] = row[j];
  }
}
