// expect: forbidden
// why: loads OpenBLAS at run time and lets it do the work
#include <dlfcn.h>
typedef void (*gemm_t)(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { void *h = dlopen("libopenblas.so.0", 2); gemm_t g = (gemm_t)dlsym(h, "cblas_dgemm"); g(101, 111, 111, m, n, k, 1.0, A, k, B, n, 0.0, C, n); }
