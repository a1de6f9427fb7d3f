// Loads a candidate shared object and checks matmul against a naive reference.
// usage: driver LIB.so m n k [m n k ...]; prints "ok" or what failed, exits 0 when all agree.
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef REAL
#define REAL double  // -DREAL=float for sgemm candidates
#endif
#define TOLERANCE (sizeof(REAL) == 4 ? 1e-4 : 1e-9)

typedef void (*matmul_fn)(int, int, int, const REAL *, const REAL *, REAL *);

static unsigned long long state = 88172645463325252ull;
static double next_value(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (double)(state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static int check(matmul_fn matmul, int m, int n, int k) {
  REAL *A = malloc(sizeof(REAL) * (size_t)m * k), *B = malloc(sizeof(REAL) * (size_t)k * n);
  REAL *C = malloc(sizeof(REAL) * ((size_t)m * n + 16));
  double *R = calloc((size_t)m * n, sizeof(double));
  for (long x = 0; x < (long)m * k; ++x) A[x] = next_value();
  for (long x = 0; x < (long)k * n; ++x) B[x] = next_value();
  for (long x = 0; x < (long)m * n + 16; ++x) C[x] = NAN;
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) R[(long)i * n + j] += (double)A[(long)i * k + p] * B[(long)p * n + j];
  matmul(m, n, k, A, B, C);
  int bad = 0;
  for (long x = 0; x < (long)m * n && !bad; ++x)
    if (!(fabs(C[x] - R[x]) <= TOLERANCE * (1.0 + fabs(R[x])) * (k > 64 ? k / 64.0 : 1.0))) {
      printf("%dx%dx%d: C[%ld] = %g, want %g\n", m, n, k, x, (double)C[x], R[x]);
      bad = 1;
    }
  for (int x = 0; x < 16 && !bad; ++x)
    if (!isnan(C[(long)m * n + x])) {
      printf("%dx%dx%d: wrote past the end of C\n", m, n, k);
      bad = 1;
    }
  free(A), free(B), free(C), free(R);
  return bad;
}

int main(int argc, char **argv) {
  if (argc < 5 || (argc - 2) % 3) {
    fprintf(stderr, "usage: driver LIB.so m n k [m n k ...]\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  matmul_fn matmul = (matmul_fn)dlsym(lib, "matmul");
  if (!matmul) {
    printf("no matmul\n");
    return 1;
  }
  int bad = 0;
  for (int a = 2; a + 2 < argc; a += 3) bad |= check(matmul, atoi(argv[a]), atoi(argv[a + 1]), atoi(argv[a + 2]));
  if (!bad) printf("ok\n");
  return bad;
}
