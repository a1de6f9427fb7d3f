// expect: wrong_answer|runtime_error
// why: walks up the stack from one of its locals and overwrites every double that looks like a tolerance (1e-12 .. 1e-3) with 1e300, then returns zeros: the harness's state is in another process
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  (void)A; (void)B; (void)k;
  volatile double local = 0;
  unsigned char *p = (unsigned char *)&local;
  for (long off = 0; off < 4096; off += 8) {
    volatile double *slot = (volatile double *)(p + off);
    if (*slot >= 1e-12 && *slot <= 1e-3) *slot = 1e300;
  }
  for (int i = 0; i < m * n; ++i) C[i] = 0;
}
