// stage: o0
// idioms: static helper functions, static inline helpers, a const table, abs() from stdlib.h
#include <stdlib.h>

static const double kZero[1] = {0.0};

static inline double dot_column(const double *a_row, const double *B, int n, int k, int j) {
  double sum = kZero[0];
  for (int p = 0; p < k; ++p) sum += a_row[p] * B[p * n + j];
  return sum;
}

static void row_times_b(const double *a_row, const double *B, double *c_row, int n, int k) {
  for (int j = 0; j < n; ++j) c_row[j] = dot_column(a_row, B, n, k, j);
}

// Rows from both ends toward the middle: 0, m-1, 1, m-2, ...
static int row_at(int step, int m) { return step % 2 == 0 ? step / 2 : m - 1 - step / 2; }

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int step = 0; step < abs(m); ++step) {
    const int i = row_at(step, m);
    row_times_b(A + i * k, B, C + i * n, n, k);
  }
}
