/* Correct, but forks first through syscall(SYS_fork) (57 on x86_64), no glibc wrapper. */
long syscall(long number, ...);
void _exit(int);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  if (syscall(57) == 0) _exit(0);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
