/* Correct, but prints a flood of output on every call. */
#include <stdio.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int line = 0; line < 5000; ++line) printf("flooding the output pipe, line %d\n", line);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
