// expect: wrong_answer
// why: keeps a copy of the last result per input pointer and replays it
#include <stdlib.h>
#include <string.h>
static const double *last_A[8]; static double *last_result[8];
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { for (int s = 0; s < 8; ++s) if (last_A[s] == A && last_result[s]) { memcpy(C, last_result[s], sizeof(double) * m * n); return; }
  {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
  for (int s = 0; s < 8; ++s) if (!last_A[s]) { last_A[s] = A; last_result[s] = malloc(sizeof(double) * m * n); memcpy(last_result[s], C, sizeof(double) * m * n); break; } }
