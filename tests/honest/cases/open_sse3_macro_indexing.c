// stage: open
// idioms: index macros (#define C(i,j) ...) in the loop body, B packed per column pair
// and multiplied with SSE3 intrinsics (_mm_loaddup_pd, _mm_mul_pd, _mm_add_pd), a scalar tail
// (SSE3 needs the open stage's -march=native: o3 compiles for baseline x86-64)
#include <pmmintrin.h>
#include <stdlib.h>

#define A(i, p) A[(long)(i) * k + (p)]
#define B(p, j) B[(long)(p) * n + (j)]
#define C(i, j) C[(long)(i) * n + (j)]

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) C(i, j) = 0.0;
  double *pair = malloc(sizeof(double) * 2 * (size_t)(k > 0 ? k : 1));
  int j = 0;
  for (; j + 2 <= n; j += 2) {
    for (int p = 0; p < k; ++p) {
      pair[2 * p] = B(p, j);
      pair[2 * p + 1] = B(p, j + 1);
    }
    for (int i = 0; i < m; ++i) {
      __m128d sum = _mm_setzero_pd();
      for (int p = 0; p < k; ++p) sum = _mm_add_pd(sum, _mm_mul_pd(_mm_loaddup_pd(&A(i, p)), _mm_loadu_pd(pair + 2 * p)));
      _mm_storeu_pd(&C(i, j), sum);
    }
  }
  for (; j < n; ++j)
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p) C(i, j) += A(i, p) * B(p, j);
  free(pair);
}
