// stage: blocking
// idioms: the GotoBLAS structure: KC x MC block loops that pack A and B in one function,
// the macro-kernel's register-block loops calling a 4x4 micro-kernel in another; zero padding
// at the edges, blocks sized by min() into locals
#include <stdlib.h>
#include <string.h>

#define KC 128
#define MC 64
#define MR 4
#define NR 4

static int imin(int a, int b) { return a < b ? a : b; }

// Apack[ir-panel][p][r]: rows ic .. ic+mb of A's columns pc .. pc+kb, MR rows per panel.
static void pack_A(int mb, int kb, const double *A, int lda, double *Apack) {
  for (int ir = 0; ir < mb; ir += MR)
    for (int p = 0; p < kb; ++p)
      for (int r = 0; r < MR; ++r) *Apack++ = ir + r < mb ? A[(long)(ir + r) * lda + p] : 0.0;
}

// Bpack[jr-panel][p][c]: rows pc .. pc+kb of B, NR columns per panel.
static void pack_B(int kb, int n, const double *B, int ldb, double *Bpack) {
  for (int jr = 0; jr < n; jr += NR)
    for (int p = 0; p < kb; ++p)
      for (int c = 0; c < NR; ++c) *Bpack++ = jr + c < n ? B[(long)p * ldb + jr + c] : 0.0;
}

// C[0..rows, 0..cols] += a-panel * b-panel over kb.
static void micro_kernel_4x4(int kb, const double *a, const double *b, double *C, int ldc, int rows, int cols) {
  double acc[MR][NR] = {{0.0}};
  for (int p = 0; p < kb; ++p)
    for (int r = 0; r < MR; ++r)
      for (int c = 0; c < NR; ++c) acc[r][c] += a[p * MR + r] * b[p * NR + c];
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) C[(long)r * ldc + c] += acc[r][c];
}

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  memset(C, 0, sizeof(double) * (size_t)m * (size_t)n);
  const int padded_n = (n + NR - 1) / NR * NR;
  double *Apack = malloc(sizeof(double) * MC * KC);
  double *Bpack = malloc(sizeof(double) * KC * (size_t)padded_n);
  for (int pc = 0; pc < k; pc += KC) {
    const int kb = imin(KC, k - pc);
    for (int ic = 0; ic < m; ic += MC) {
      const int mb = imin(MC, m - ic);
      pack_A(mb, kb, &A[(long)ic * k + pc], k, Apack);
      if (ic == 0) pack_B(kb, n, &B[(long)pc * n], n, Bpack);
      for (int jr = 0; jr < n; jr += NR)
        for (int ir = 0; ir < mb; ir += MR)
          micro_kernel_4x4(kb, &Apack[ir * kb], &Bpack[(long)jr * kb], &C[(long)(ic + ir) * n + jr], n,
                           imin(MR, mb - ir), imin(NR, n - jr));
    }
  }
  free(Apack);
  free(Bpack);
}
