// Times a candidate's matmul against OpenBLAS dgemm on the same shape, interleaved (so both
// see the same machine load), single-threaded unless OMP_NUM_THREADS / OPENBLAS_NUM_THREADS
// say otherwise. Used for docs/reports/generator.md; not part of the pipeline.
//
//   gcc -O2 -o compare_blas compare_blas.c -ldl -lopenblas
//   taskset -c 1 ./compare_blas cand.so 256 [rounds]
//
// Prints, per side, the best and the median over rounds of each round's median of 15 calls.
#include <cblas.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*matmul_fn)(int, int, int, const double *, const double *, double *);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int count) {
  qsort(v, count, sizeof *v, by_value);
  return v[count / 2];
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: compare_blas LIB.so N [rounds]\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW);
  matmul_fn matmul = lib ? (matmul_fn)dlsym(lib, "matmul") : NULL;
  if (!matmul) {
    fprintf(stderr, "cannot load matmul from %s\n", argv[1]);
    return 1;
  }
  const int n = atoi(argv[2]), rounds = argc > 3 ? atoi(argv[3]) : 21, calls = 15;
  // 64-byte aligned, as the pipeline's buffers are (plain malloc of this size is 16 bytes off a
  // page: every zmm load would cross a cache line and the candidate would look 1.5x slower).
  const size_t bytes = ((sizeof(double) * n * n + 63) / 64) * 64;
  double *A = aligned_alloc(64, bytes), *B = aligned_alloc(64, bytes), *C = aligned_alloc(64, bytes);
  for (long x = 0; x < (long)n * n; ++x) A[x] = (double)(x % 17) / 17.0, B[x] = (double)(x % 13) / 13.0;
  double cand[64], blas[64], t[64];
  for (int r = 0; r < rounds && r < 64; ++r) {
    for (int c = 0; c < calls; ++c) {
      double s = now();
      matmul(n, n, n, A, B, C);
      t[c] = now() - s;
    }
    cand[r] = 2.0 * n * n * n / median(t, calls) / 1e9;
    for (int c = 0; c < calls; ++c) {
      double s = now();
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.0, C, n);
      t[c] = now() - s;
    }
    blas[r] = 2.0 * n * n * n / median(t, calls) / 1e9;
  }
  if (rounds > 64) return 2;
  double cand_med = median(cand, rounds), blas_med = median(blas, rounds);
  printf("candidate GFLOPS: best %.2f median %.2f\nOpenBLAS  GFLOPS: best %.2f median %.2f\nratio of medians %.2f, of bests %.2f\n",
         cand[rounds - 1], cand_med, blas[rounds - 1], blas_med, cand_med / blas_med, cand[rounds - 1] / blas[rounds - 1]);
  return 0;
}
