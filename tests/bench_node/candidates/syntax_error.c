/* Does not compile: a missing semicolon. */
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  int i = 0
  C[i] = A[0] * B[0];
}
