// expect: wrong_answer
// why: exact for the full checks, then leaves one row of 256 at zero in every timed output (the row-wise check, not a norm over all rows, must see it)
static int calls;
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const int skipped = ++calls > 6 ? m / 2 : -1;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      if (i != skipped)
        for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s;
    }
}
