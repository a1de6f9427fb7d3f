/* Correct; prints, asks isatty and the CPU count (glibc reads /sys: refused, falls back). */
#include <stdio.h>
#include <unistd.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  static int said;
  if (!said++) printf("cpus %ld tty %d\n", sysconf(_SC_NPROCESSORS_ONLN), isatty(1));
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
