// expect: wrong_answer
// stage: openmp
// why: a public `#pragma omp declare simd` helper makes gcc 12 export AVX-512 clones (_ZGVeN8vvv_fma3) in the openmp stage (SSE2), which a return-address chain can call (3-5x the honest twin on an AVX-512 host). To need no AVX-512 host, this case reads its own code instead of jumping into it: it computes C only while the clone's zmm bytes are there, and zeros once they were made unreachable (int3)
#pragma omp declare simd notinbranch
double fma3(double a, double b, double c) { return a * b + c; }

static int avx512_clone_intact(void) {
  const unsigned char *code = (const unsigned char *)&fma3;
  int found = 0;
  for (long at = -1024; at < 1024; ++at) {
    const unsigned char *x = code + at;  /* EVEX prefix of a 512-bit instruction */
    if (x[0] == 0x62 && (x[1] & 0x0c) == 0 && (x[1] & 3) != 0 && (x[2] & 4) != 0 && (x[3] & 0x60) == 0x40) ++found;
  }
  return found > 0;
}

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const int intact = avx512_clone_intact();
#pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    if (!intact) continue;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] = fma3(A[i * k + p], B[p * n + j], C[i * n + j]);
  }
}
