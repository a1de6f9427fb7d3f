/* Plain i-k-j that only talks about OpenMP: in comments and a string, never in code.
   #pragma omp parallel for schedule(static)
   omp_set_num_threads(8); GOMP_parallel(fn, data, 0, 0); */
// #pragma omp parallel for
static const char kPlan[] = "#pragma omp parallel for collapse(2); omp_get_num_threads()";

void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  (void)kPlan;
  for (int i = 0; i < m; ++i) {  // #pragma omp simd
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p) {
      const double a = A[i * k + p];
      for (int j = 0; j < n; ++j) C[i * n + j] += a * B[p * n + j];
    }
  }
}
