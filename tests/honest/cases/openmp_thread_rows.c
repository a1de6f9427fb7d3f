// stage: openmp
// idioms: omp_get_num_threads and omp_get_thread_num to split rows by hand, per-thread
// calloc scratch (freed), memcpy, static helper
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static void one_row(const double *a_row, const double *B, double *acc, int n, int k) {
  memset(acc, 0, (size_t)n * sizeof *acc);
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < n; ++j) acc[j] += a_row[p] * B[(size_t)p * n + j];
}

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
#pragma omp parallel
  {
    const int threads = omp_get_num_threads();
    const int me = omp_get_thread_num();
    const int first = (int)((long)m * me / threads), last = (int)((long)m * (me + 1) / threads);
    double *acc = calloc((size_t)n, sizeof *acc);
    if (acc) {
      for (int i = first; i < last; ++i) {
        one_row(A + (size_t)i * k, B, acc, n, k);
        memcpy(C + (size_t)i * n, acc, (size_t)n * sizeof *acc);
      }
      free(acc);
    }
  }
}
