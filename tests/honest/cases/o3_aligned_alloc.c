// stage: o3
// idioms: aligned_alloc scratch (size rounded up to the alignment, freed), _Alignas, memset
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const size_t bytes = ((size_t)n * sizeof(double) + 63) / 64 * 64;
  double *acc = aligned_alloc(64, bytes);
  if (!acc) return;
  _Alignas(64) double a4[4];
  for (int i = 0; i < m; ++i) {
    memset(acc, 0, bytes);
    int p = 0;
    for (; p + 4 <= k; p += 4) {
      for (int q = 0; q < 4; ++q) a4[q] = A[(size_t)i * k + p + q];
      for (int j = 0; j < n; ++j)
        acc[j] += a4[0] * B[(size_t)p * n + j] + a4[1] * B[(size_t)(p + 1) * n + j] +
                  a4[2] * B[(size_t)(p + 2) * n + j] + a4[3] * B[(size_t)(p + 3) * n + j];
    }
    for (; p < k; ++p)
      for (int j = 0; j < n; ++j) acc[j] += A[(size_t)i * k + p] * B[(size_t)p * n + j];
    for (int j = 0; j < n; ++j) C[(size_t)i * n + j] = acc[j];
  }
  free(acc);
}
