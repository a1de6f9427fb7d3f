// expect: runtime_error
// why: a crash costs one candidate, never the rank
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { *(volatile int *)0 = 1; }
