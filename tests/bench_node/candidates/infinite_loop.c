/* Never returns. */
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  volatile int forever = 1;
  while (forever) C[0] = A[0] * B[0] + m + n + k;
}
