// expect: forbidden
void *dlopen(const char *, int);
void *dlsym(void *, const char *);
typedef void (*gemm_t)(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { gemm_t g = (gemm_t)dlsym(dlopen("libopenblas.so.0", 2), "cblas_dgemm"); g(101, 111, 111, m, n, k, 1.0, A, k, B, n, 0.0, C, n); }
