// stage: o3
// idioms: malloc scratch (freed), a transposed copy of B in it, size_t index arithmetic, restrict
#include <stddef.h>
#include <stdlib.h>

void matmul(int m, int n, int k, const double *restrict A, const double *restrict B, double *restrict C) {
  const size_t M = (size_t)m, N = (size_t)n, K = (size_t)k;
  double *restrict bt = malloc(N * K * sizeof *bt);
  if (!bt) return;
  for (size_t p = 0; p < K; ++p)
    for (size_t j = 0; j < N; ++j) bt[j * K + p] = B[p * N + j];
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      double sum = 0.0;
      for (size_t p = 0; p < K; ++p) sum += A[i * K + p] * bt[j * K + p];
      C[i * N + j] = sum;
    }
  free(bt);
}
