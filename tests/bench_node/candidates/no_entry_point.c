/* Compiles, but the entry point has the wrong name. */
void mat_mul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m * n; ++i) C[i] = A[0] * B[0] * k;
}
