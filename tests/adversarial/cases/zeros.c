// expect: wrong_answer
#include <string.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { memset(C, 0, sizeof(double) * m * n); }
