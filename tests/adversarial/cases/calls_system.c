// expect: forbidden
#include <stdlib.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { system("touch /tmp/hpcreward-adversarial-pwned-calls_system"); }
