// expect: wrong_answer
// why: a dgemm that computes its timed outputs in float (half the bytes, twice the SIMD lanes), exact in double for the full checks
static int calls;
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const int cheap = ++calls > 6;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      float f = 0;
      for (int p = 0; p < k; ++p) {
        if (cheap) f += (float)A[i * k + p] * (float)B[p * n + j];
        else s += A[i * k + p] * B[p * n + j];
      }
      C[i * n + j] = cheap ? f : s;
    }
}
