// stage: avx512
// idioms: _mm512 intrinsics for the body of each row and a `#pragma omp declare simd` helper for
// its tail, called from a `#pragma omp simd` loop (gcc exports the helper's variants for every
// ISA; these flags target AVX-512, so none of them is disabled and the loop may call any)
#include <immintrin.h>

#pragma omp declare simd notinbranch
double scaled_add(double a, double b, double c) { return a * b + c; }

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i) {
    double *c = C + (long)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0.0;
    const int body = n - n % 8;
    for (int p = 0; p < k; ++p) {
      const double a = A[(long)i * k + p];
      const double *b = B + (long)p * n;
      const __m512d va = _mm512_set1_pd(a);
      for (int j = 0; j < body; j += 8)
        _mm512_storeu_pd(c + j, _mm512_fmadd_pd(va, _mm512_loadu_pd(b + j), _mm512_loadu_pd(c + j)));
#pragma omp simd
      for (int j = body; j < n; ++j) c[j] = scaled_add(a, b[j], c[j]);
    }
  }
}
