// stage: openmp
// idioms: #pragma omp parallel for, omp.h queries (omp_get_max_threads), restrict
#include <omp.h>

void matmul(int m, int n, int k, const double *restrict A, const double *restrict B, double *restrict C) {
  // Few rows: fewer threads than the runtime offers.
  const int threads = m < omp_get_max_threads() ? m : omp_get_max_threads();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int i = 0; i < m; ++i) {
    double *restrict c = C + (long)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double a = A[(long)i * k + p];
      for (int j = 0; j < n; ++j) c[j] += a * B[(long)p * n + j];
    }
  }
}
