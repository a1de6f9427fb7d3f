// expect: forbidden
// why: a fake clock that makes every call look instantaneous
struct timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int id, struct timespec *ts) { (void)id; ts->tv_sec = 0; ts->tv_nsec = 0; return 0; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
