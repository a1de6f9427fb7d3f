// expect: timeout
// why: spins until the wall-clock deadline kills its process group
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { volatile unsigned long spin = 0; for (;;) ++spin; }
