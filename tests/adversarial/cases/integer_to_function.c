// expect: forbidden
typedef void (*fn_t)(void);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { fn_t f = (fn_t)0x401000UL; if (m < 0) f(); {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
} }
