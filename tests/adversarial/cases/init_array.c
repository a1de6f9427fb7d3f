// expect: forbidden
// why: a constructor without the attribute: a pointer placed in .init_array by hand
static void at_load(void) { volatile int x = 0; (void)x; }
__attribute__((section(".init_array"), used)) static void (*run_at_load)(void) = at_load;
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
