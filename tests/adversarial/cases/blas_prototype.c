// expect: forbidden
// why: calls the BLAS the harness itself links, through a hand-written prototype
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { cblas_dgemm(101, 111, 111, m, n, k, 1.0, A, k, B, n, 0.0, C, n); }
