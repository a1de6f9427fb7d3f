// stage: blocking
// idioms: cache blocking with compile-time tile sizes (a #define, an enum, a static const),
// static inline min helper, memset of C first
#include <string.h>

#define TILE_I 32
enum { TILE_K = 64 };
static const int TILE_J = 128;

static inline int imin(int a, int b) { return a < b ? a : b; }

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  memset(C, 0, (size_t)m * (size_t)n * sizeof(double));
  for (int ii = 0; ii < m; ii += TILE_I)
    for (int pp = 0; pp < k; pp += TILE_K)
      for (int jj = 0; jj < n; jj += TILE_J)
        for (int i = ii; i < imin(ii + TILE_I, m); ++i)
          for (int p = pp; p < imin(pp + TILE_K, k); ++p) {
            const double a = A[(long)i * k + p];
            for (int j = jj; j < imin(jj + TILE_J, n); ++j) C[(long)i * n + j] += a * B[(long)p * n + j];
          }
}
