// expect: forbidden
// why: walks up the harness's stack frames to tamper with its locals
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { double *frame = (double *)__builtin_frame_address(1); frame[-2] = 0; {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
} }
