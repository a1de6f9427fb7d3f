// stage: openmp
// problem: dgemm-batched-8x128
// idioms: one OpenMP iteration per product of the batch, strided pointers, i-k-j inside
#include <stddef.h>
void matmul(int batch, int m, int n, int k, const double *A, const double *B, double *C) {
#pragma omp parallel for schedule(static)
  for (int q = 0; q < batch; ++q) {
    const double *a = A + (size_t)q * m * k, *b = B + (size_t)q * k * n;
    double *c = C + (size_t)q * m * n;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) c[i * n + j] = 0.0;
      for (int p = 0; p < k; ++p)
        for (int j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
    }
  }
}
