// expect: wrong_answer|runtime_error
// why: sizes fixed at the nominal shape
#define N 256
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { (void)m; (void)n; (void)k; for (int i = 0; i < N; ++i) { for (int j = 0; j < N; ++j) C[i * N + j] = 0; for (int p = 0; p < N; ++p) for (int j = 0; j < N; ++j) C[i * N + j] += A[i * N + p] * B[p * N + j]; } }
