// Single precision cache blocking (plain C): 64 x 64 tiles of C accumulate 64-deep panels of A and B.
#define TILE 64
static int min_int(int a, int b) { return a < b ? a : b; }

void matmul(int m, int n, int k, const float *restrict A, const float *restrict B,
            float *restrict C) {
  for (long x = 0; x < (long)m * n; ++x) C[x] = 0.0f;
  for (int ii = 0; ii < m; ii += TILE)
    for (int pp = 0; pp < k; pp += TILE)
      for (int jj = 0; jj < n; jj += TILE)
        for (int i = ii; i < min_int(ii + TILE, m); ++i)
          for (int p = pp; p < min_int(pp + TILE, k); ++p) {
            const float a = A[(long)i * k + p];
            for (int j = jj; j < min_int(jj + TILE, n); ++j) C[(long)i * n + j] += a * B[(long)p * n + j];
          }
}
