// expect: timeout|forbidden
// why: inline asm is refused statically; without it this would spin until the deadline
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { for (;;) { __asm__ volatile("" ::: "memory"); } }
