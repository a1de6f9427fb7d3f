// stage: openmp
// idioms: #pragma omp declare simd on a non-static helper (gcc then exports its vector
// variants, _ZGVbN2vvv_scaled_add and the like), #pragma omp simd on the loop that calls it
#pragma omp declare simd notinbranch
double scaled_add(double a, double b, double c) { return a * b + c; }

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
#pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    double *c = C + (long)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double a = A[(long)i * k + p];
      const double *b = B + (long)p * n;
#pragma omp simd
      for (int j = 0; j < n; ++j) c[j] = scaled_add(a, b[j], c[j]);
    }
  }
}
