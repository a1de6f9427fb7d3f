/* An honest OpenMP bug: k is shared out among the threads, each sums its part of every
   element privately, then stores it into C where it meant to add it (a race on C: the last
   thread to store an element wins). Right with one thread, wrong with two or more, whatever
   the order the threads run in. */
#include <stdlib.h>
#include <string.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  memset(C, 0, sizeof(double) * (size_t)m * n);
#pragma omp parallel
  {
    double *part = calloc((size_t)m * n, sizeof(double));
#pragma omp for schedule(static) nowait
    for (int p = 0; p < k; ++p)
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) part[i * n + j] += A[i * k + p] * B[p * n + j];
    for (int i = 0; i < m * n; ++i)
      if (part[i] != 0) C[i] = part[i];
    free(part);
  }
}
