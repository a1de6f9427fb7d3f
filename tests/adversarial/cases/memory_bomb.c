// expect: runtime_error|timeout
// why: allocates and touches memory until the address-space limit stops it
#include <stdlib.h>
#include <string.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { for (;;) { char *p = malloc(1 << 26); memset(p, 1, 1 << 26); } }
