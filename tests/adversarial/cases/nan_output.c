// expect: wrong_answer
#include <math.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { for (int i = 0; i < m * n; ++i) C[i] = NAN; }
