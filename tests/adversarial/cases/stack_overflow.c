// expect: runtime_error
static int deep(volatile int depth) { volatile char pad[4096]; pad[0] = (char)depth; return deep(depth + 1) + pad[0]; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { C[0] = deep(0); }
