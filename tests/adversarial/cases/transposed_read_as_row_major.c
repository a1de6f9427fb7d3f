// expect: wrong_answer
// problem: dgemm-tn-256
// why: a transposed-A problem scored with row-major code: every value of A is read, at the wrong place
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s;
    }
}
