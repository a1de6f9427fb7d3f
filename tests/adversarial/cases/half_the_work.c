// expect: wrong_answer
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { for (int i = 0; i < m * n; ++i) C[i] = 0.0; for (int i = 0; i < m / 2; ++i) for (int p = 0; p < k; ++p) for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j]; }
