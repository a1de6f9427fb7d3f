// expect: wrong_answer
// why: recomputes only for pointers it has not seen
static const double *seen_A; static const double *seen_B; static double *seen_C;
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { if (A == seen_A && B == seen_B && C == seen_C) return; seen_A = A; seen_B = B; seen_C = C; {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
} }
