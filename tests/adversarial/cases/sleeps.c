// expect: forbidden
unsigned int sleep(unsigned int);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { sleep(100); }
