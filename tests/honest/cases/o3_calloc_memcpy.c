// stage: o3
// idioms: calloc scratch (freed), memcpy, memset
#include <stdlib.h>
#include <string.h>

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  double *row = calloc((size_t)n, sizeof(double));
  if (!row) return;
  for (int i = 0; i < m; ++i) {
    memset(row, 0, (size_t)n * sizeof(double));
    for (int p = 0; p < k; ++p) {
      const double a = A[(size_t)i * k + p];
      for (int j = 0; j < n; ++j) row[j] += a * B[(size_t)p * n + j];
    }
    memcpy(C + (size_t)i * n, row, (size_t)n * sizeof(double));
  }
  free(row);
}
