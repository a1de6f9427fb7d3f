// expect: forbidden
extern char **environ;
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { C[0] = environ[0][0]; }
