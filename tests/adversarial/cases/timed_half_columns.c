// expect: wrong_answer
// why: exact for the full checks (two calls at each of three shapes), then only half the columns of every timed output
static int calls;
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const int columns = ++calls > 6 ? n / 2 : n;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      if (j < columns)
        for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s;
    }
}
