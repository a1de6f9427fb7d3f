// stage: o3
// idioms: a non-static helper whose name OpenBLAS also exports (dgemm_nn, one of its
// kernels); the candidate defines it and never loads OpenBLAS
#include <string.h>

void dgemm_nn(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) {
      const double a = A[(long)i * k + p];
      for (int j = 0; j < n; ++j) C[(long)i * n + j] += a * B[(long)p * n + j];
    }
}

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  memset(C, 0, sizeof(double) * (size_t)m * (size_t)n);
  dgemm_nn(m, n, k, A, B, C);
}
