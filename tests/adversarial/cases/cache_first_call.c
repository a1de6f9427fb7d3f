// expect: wrong_answer
// why: computes once, then replays the first result forever
#include <stdlib.h>
#include <string.h>
static double *first;
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { if (first) { memcpy(C, first, sizeof(double) * m * n); return; }
  {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
  first = malloc(sizeof(double) * m * n); memcpy(first, C, sizeof(double) * m * n); }
