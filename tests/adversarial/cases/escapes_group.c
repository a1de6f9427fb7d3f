// expect: forbidden
// why: leaves the process group the rank kills at the deadline
int setsid(void);
int fork(void);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { if (fork() == 0) { setsid(); for (;;) {} } }
