// stage: o3
// idioms: fma() from math.h, a static inline helper, restrict
#include <math.h>

static inline void axpy_row(double a, const double *restrict x, double *restrict y, int n) {
  for (int j = 0; j < n; ++j) y[j] = fma(a, x[j], y[j]);
}

void matmul(int m, int n, int k, const double *restrict A, const double *restrict B, double *restrict C) {
  for (int i = 0; i < m; ++i) {
    double *restrict c = C + (long)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0.0;
    for (int p = 0; p < k; ++p) axpy_row(A[(long)i * k + p], B + (long)p * n, c, n);
  }
}
