// expect: forbidden|runtime_error
#include <stdlib.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { abort(); }
