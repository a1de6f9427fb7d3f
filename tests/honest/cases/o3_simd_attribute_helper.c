// stage: o3
// idioms: __attribute__((simd)) on a non-static helper (gcc then exports its vector variants
// for SSE2, AVX, AVX2 and AVX-512, _ZGVeN8vvv_fma3 among them, whatever the flags; the loop
// calls the SSE2 one)
__attribute__((simd)) double fma3(double a, double b, double c) { return a * b + c; }

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i) {
    double *c = C + (long)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double a = A[(long)i * k + p];
      const double *b = B + (long)p * n;
      for (int j = 0; j < n; ++j) c[j] = fma3(a, b[j], c[j]);
    }
  }
}
