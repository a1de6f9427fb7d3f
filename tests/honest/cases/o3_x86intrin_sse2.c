// stage: o3
// idioms: <x86intrin.h> and <mmintrin.h> (the umbrella and MMX headers) for SSE2 intrinsics
// (_mm_loadu_pd, _mm_mul_pd, _mm_add_pd), _mm_empty, a scalar tail
#include <mmintrin.h>
#include <x86intrin.h>

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i) {
    double *c = C + (long)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double *b = B + (long)p * n;
      const __m128d a = _mm_set1_pd(A[(long)i * k + p]);
      int j = 0;
      for (; j + 2 <= n; j += 2)
        _mm_storeu_pd(c + j, _mm_add_pd(_mm_loadu_pd(c + j), _mm_mul_pd(a, _mm_loadu_pd(b + j))));
      for (; j < n; ++j) c[j] += A[(long)i * k + p] * b[j];
    }
  }
  _mm_empty();
}
