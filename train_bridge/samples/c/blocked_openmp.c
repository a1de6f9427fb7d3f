// Cache blocking with OpenMP over row tiles of C.
#define TILE_I 32
#define TILE_K 128
static int min_int(int a, int b) { return a < b ? a : b; }

void matmul(int m, int n, int k, const double *restrict A, const double *restrict B,
            double *restrict C) {
#pragma omp parallel for schedule(static)
  for (int ii = 0; ii < m; ii += TILE_I) {
    const int i_end = min_int(ii + TILE_I, m);
    for (int i = ii; i < i_end; ++i)
      for (int j = 0; j < n; ++j) C[(long)i * n + j] = 0.0;
    for (int pp = 0; pp < k; pp += TILE_K) {
      const int p_end = min_int(pp + TILE_K, k);
      for (int i = ii; i < i_end; ++i)
        for (int p = pp; p < p_end; ++p) {
          const double a = A[(long)i * k + p];
          for (int j = 0; j < n; ++j) C[(long)i * n + j] += a * B[(long)p * n + j];
        }
    }
  }
}
