// stage: openmp
// idioms: #pragma omp parallel for collapse(2), a transposed copy of B in malloc scratch
#include <stdlib.h>

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  double *bt = malloc((size_t)n * (size_t)k * sizeof(double));
  if (!bt) return;
#pragma omp parallel for collapse(2)
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < n; ++j) bt[(size_t)j * k + p] = B[(size_t)p * n + j];
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int p = 0; p < k; ++p) sum += A[(size_t)i * k + p] * bt[(size_t)j * k + p];
      C[(size_t)i * n + j] = sum;
    }
  free(bt);
}
