// expect: forbidden
#include <stdio.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { FILE *f = fopen("/tmp/hpcreward-adversarial-pwned-writes_file", "w"); fputs("pwned", f); fclose(f); }
