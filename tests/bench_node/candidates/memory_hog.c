/* Asks for far more memory than the sandbox allows and uses it unchecked. */
#include <stdlib.h>
#include <string.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  char *lots = malloc((size_t)8 << 30);
  memset(lots, 1, (size_t)8 << 30);
  C[0] = A[0] * B[0] + lots[m + n + k];
}
