// stage: o3
// idioms: a const lookup table (unroll offsets), a static const scalar, size_t indexing
#include <stddef.h>

static const int kOffsets[4] = {0, 1, 2, 3};
static const double kInit = 0.0;

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (size_t i = 0; i < (size_t)m; ++i) {
    size_t j = 0;
    for (; j + 4 <= (size_t)n; j += 4) {
      double s[4] = {kInit, kInit, kInit, kInit};
      for (size_t p = 0; p < (size_t)k; ++p) {
        const double a = A[i * (size_t)k + p];
        s[0] += a * B[p * (size_t)n + j + kOffsets[0]];
        s[1] += a * B[p * (size_t)n + j + kOffsets[1]];
        s[2] += a * B[p * (size_t)n + j + kOffsets[2]];
        s[3] += a * B[p * (size_t)n + j + kOffsets[3]];
      }
      C[i * (size_t)n + j + 0] = s[0];
      C[i * (size_t)n + j + 1] = s[1];
      C[i * (size_t)n + j + 2] = s[2];
      C[i * (size_t)n + j + 3] = s[3];
    }
    for (; j < (size_t)n; ++j) {
      double s = kInit;
      for (size_t p = 0; p < (size_t)k; ++p) s += A[i * (size_t)k + p] * B[p * (size_t)n + j];
      C[i * (size_t)n + j] = s;
    }
  }
}
