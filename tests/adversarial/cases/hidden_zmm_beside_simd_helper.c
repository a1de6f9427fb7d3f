// expect: constraint_violation
// stage: o3
// why: AVX-512 FMAs hidden in 64-bit constants (62 f2 f5 48 b8 c2 = vfmadd231pd zmm0, zmm1, zmm2, then a jump over the next movabs's opcode) for a return-address chain, beside an unused simd helper whose AVX-512 clone used to switch the hidden-instruction scan off (it scored ok; without the helper it was constraint_violation)
__attribute__((simd)) double unused(double x) { return x + 1.0; }
__attribute__((noinline)) unsigned long long hidden_a(void) { return 0x02EBC2B848F5F262ULL; }
__attribute__((noinline)) unsigned long long hidden_b(void) { return 0x02EBDAB848F5F262ULL; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const double zero = (double)(hidden_a() == hidden_b());
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = zero;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
