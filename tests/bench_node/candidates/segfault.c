/* Crashes: writes through a null pointer. */
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  volatile double *nowhere = 0;
  *nowhere = A[0] + B[0] + C[0] + m + n + k;
}
