// expect: wrong_answer
// problem: dgemm-batched-8x128
// why: exact for the full checks, then the last product of every timed call copied from the one before it (finite, plausible, one eighth of the work saved)
#include <string.h>
static int calls;
static void product(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s;
    }
}
void matmul(int batch, int m, int n, int k, const double *A, const double *B, double *C) {
  const int computed = ++calls > 6 && batch > 1 ? batch - 1 : batch;
  for (int q = 0; q < computed; ++q) product(m, n, k, A + (long)q * m * k, B + (long)q * k * n, C + (long)q * m * n);
  if (computed < batch) memcpy(C + (long)computed * m * n, C + (long)(computed - 1) * m * n, sizeof(double) * m * n);
}
