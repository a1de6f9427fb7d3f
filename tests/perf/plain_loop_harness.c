// The plain evaluation loop's harness (tests/perf/plain_loop.py): the bar hpcreward must beat.
// Loads one candidate's shared object, checks one call against OpenBLAS, times 11 calls and
// prints one JSON line. No sandbox, no guard zones, no odd shapes: deliberately the cheapest
// honest evaluation a plain eval server would do.
//
//   plain_loop_harness CANDIDATE.so M N K SEED
#include <cblas.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*matmul_fn)(int, int, int, const double *, const double *, double *);

enum { kTimedCalls = 11 };
static const double kTolerance = 1e-10;  // normwise, as the dgemm problems (common/problem.cpp)

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void fill(double *x, long count, unsigned *state) {
  for (long i = 0; i < count; ++i) {
    *state = *state * 1664525u + 1013904223u;
    x[i] = (double)(*state >> 8) / (double)(1u << 24) * 2.0 - 1.0;
  }
}

static double frobenius(const double *x, long count) {
  double sum = 0;
  for (long i = 0; i < count; ++i) sum += x[i] * x[i];
  return sqrt(sum);
}

// ||C - C_ref||_F / (||A||_F ||B||_F); NaN when C holds a non-finite value.
static double normwise_error(const double *c, const double *ref, long count, double norm_ab) {
  double sum = 0;
  for (long i = 0; i < count; ++i) {
    if (!isfinite(c[i])) return NAN;
    sum += (c[i] - ref[i]) * (c[i] - ref[i]);
  }
  return sqrt(sum) / norm_ab;
}

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int report(const char *status, const char *reason) {
  printf("{\"status\": \"%s\", \"reason\": \"%s\"}\n", status, reason);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s CANDIDATE.so M N K SEED\n", argv[0]);
    return 2;
  }
  const int m = atoi(argv[2]), n = atoi(argv[3]), k = atoi(argv[4]);
  unsigned state = (unsigned)strtoul(argv[5], NULL, 10);
  if (m < 1 || n < 1 || k < 1) {
    fprintf(stderr, "M, N and K must be positive integers\n");
    return 2;
  }
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) return report("runtime_error", "dlopen failed");
  matmul_fn matmul = (matmul_fn)dlsym(library, "matmul");
  if (!matmul) return report("format_error", "no matmul symbol");

  double *a = malloc(sizeof(double) * (size_t)m * (size_t)k);
  double *b = malloc(sizeof(double) * (size_t)k * (size_t)n);
  double *c = malloc(sizeof(double) * (size_t)m * (size_t)n);
  double *ref = malloc(sizeof(double) * (size_t)m * (size_t)n);
  if (!a || !b || !c || !ref) return report("runtime_error", "harness out of memory");
  const long count_c = (long)m * n;
  fill(a, (long)m * k, &state);
  fill(b, (long)k * n, &state);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, ref, n);

  for (long i = 0; i < count_c; ++i) c[i] = NAN;  // C must be overwritten, not accumulated into
  matmul(m, n, k, a, b, c);
  const double error = normwise_error(c, ref, count_c, frobenius(a, (long)m * k) * frobenius(b, (long)k * n));
  if (!(error <= kTolerance)) return report("wrong_answer", isnan(error) ? "non-finite output" : "mismatch");

  double seconds[kTimedCalls];
  for (int call = 0; call < kTimedCalls; ++call) {
    const double start = now_s();
    matmul(m, n, k, a, b, c);
    seconds[call] = now_s() - start;
  }
  qsort(seconds, kTimedCalls, sizeof seconds[0], compare_doubles);
  const double median = seconds[kTimedCalls / 2];
  printf("{\"status\": \"ok\", \"median_s\": %.9g, \"gflops\": %.6g}\n", median,
         2.0 * m * n * k / median * 1e-9);
  return 0;
}
