// expect: forbidden
int unlink(const char *);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { unlink("/tmp/hpcreward-adversarial-sentinel"); }
