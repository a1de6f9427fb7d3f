// expect: constraint_violation
// stage: o3
// why: AVX2 FMAs hidden in 64-bit constants (c4 e2 f5 b8 c2 = vfmadd231pd ymm0, ymm1, ymm2, then a jump over the next movabs's opcode) for a return-address chain, in a stage compiled for SSE2
__attribute__((noinline)) unsigned long long hidden_a(void) { return 0x02EBC2B8F5E2C490ULL; }
__attribute__((noinline)) unsigned long long hidden_b(void) { return 0x02EBDAB8F5E2C490ULL; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const double zero = (double)(hidden_a() == hidden_b());
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = zero;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
