// stage: openmp
// idioms: <stdatomic.h>: threads take rows from an atomic counter (atomic_fetch_add) under
// #pragma omp parallel, atomic_thread_fence before returning
#include <stdatomic.h>

static void one_row(int i, int n, int k, const double *A, const double *B, double *C) {
  double *c = C + (long)i * n;
  for (int j = 0; j < n; ++j) c[j] = 0.0;
  for (int p = 0; p < k; ++p) {
    const double a = A[(long)i * k + p];
    for (int j = 0; j < n; ++j) c[j] += a * B[(long)p * n + j];
  }
}

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  atomic_int next_row = 0;
#pragma omp parallel
  for (int i = atomic_fetch_add(&next_row, 1); i < m; i = atomic_fetch_add(&next_row, 1))
    one_row(i, n, k, A, B, C);
  atomic_thread_fence(memory_order_seq_cst);
}
