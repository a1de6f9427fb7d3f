// stage: open
// idioms: tiles (compile-time sizes) and OpenMP in the open stage (-march=native), which
// hosts without AVX-512 also run; restrict, a row-pointer update
#define TILE_I 48
#define TILE_K 96

static inline int imin(int a, int b) { return a < b ? a : b; }

void matmul(int m, int n, int k, const double *restrict A, const double *restrict B, double *restrict C) {
#pragma omp parallel for schedule(static)
  for (int ii = 0; ii < m; ii += TILE_I) {
    for (int i = ii; i < imin(ii + TILE_I, m); ++i)
      for (int j = 0; j < n; ++j) C[(long)i * n + j] = 0.0;
    for (int pp = 0; pp < k; pp += TILE_K)
      for (int i = ii; i < imin(ii + TILE_I, m); ++i) {
        double *restrict c = C + (long)i * n;
        for (int p = pp; p < imin(pp + TILE_K, k); ++p) {
          const double a = A[(long)i * k + p];
          const double *restrict b = B + (long)p * n;
          for (int j = 0; j < n; ++j) c[j] += a * b[j];
        }
      }
  }
}
