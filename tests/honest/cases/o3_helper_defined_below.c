// stage: o3
// idioms: matmul first, its helpers defined further down the file behind forward
// declarations (one static, one not)
static void zero_row(double *c, int n);
void add_scaled_row(double a, const double *b, double *c, int n);

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i) {
    zero_row(C + (long)i * n, n);
    for (int p = 0; p < k; ++p) add_scaled_row(A[(long)i * k + p], B + (long)p * n, C + (long)i * n, n);
  }
}

static void zero_row(double *c, int n) {
  for (int j = 0; j < n; ++j) c[j] = 0.0;
}

void add_scaled_row(double a, const double *b, double *c, int n) {
  for (int j = 0; j < n; ++j) c[j] += a * b[j];
}
