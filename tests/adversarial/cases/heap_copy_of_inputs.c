// expect: wrong_answer|runtime_error
// why: searches the memory around A for another copy of A's first values (the harness's pristine copy, which its reference is computed from) and zeroes it, then returns zeros: the copies live in the measurer's memory
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  (void)B;
  const long span = 1L << 20;
  const double *lo = A - span, *hi = A + span;
  for (const double *p = lo; p + 8 < hi; ++p) {
    if (p == A) continue;
    int same = 1;
    for (int i = 0; i < 8 && same; ++i) same = p[i] == A[i];
    if (same) {
      double *copy = (double *)p;
      for (long i = 0; i < (long)m * k; ++i) copy[i] = 0;
    }
  }
  for (int i = 0; i < m * n; ++i) C[i] = 0;
}
