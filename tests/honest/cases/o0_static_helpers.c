// stage: o0
// idioms: static helper functions, static inline helpers, a const table
static const double kZero[1] = {0.0};

static inline double dot_column(const double *a_row, const double *B, int n, int k, int j) {
  double sum = kZero[0];
  for (int p = 0; p < k; ++p) sum += a_row[p] * B[p * n + j];
  return sum;
}

static void row_times_b(const double *a_row, const double *B, double *c_row, int n, int k) {
  for (int j = 0; j < n; ++j) c_row[j] = dot_column(a_row, B, n, k, j);
}

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i) row_times_b(A + i * k, B, C + i * n, n, k);
}
