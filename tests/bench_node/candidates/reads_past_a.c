/* An honest off-by-one: A[i][p + 1] for A[i][p]. The last row reads one element past A (the
   harness's guard zone, whose bytes read as doubles of any size: huge, tiny, inf or NaN). */
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p + 1] * B[p * n + j];
  }
}
