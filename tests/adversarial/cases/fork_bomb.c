// expect: forbidden
int fork(void);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { for (;;) fork(); }
