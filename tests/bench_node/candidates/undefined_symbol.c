/* Calls a function that exists nowhere: the link fails. */
void helper_that_does_not_exist(double *C);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  (void)m; (void)n; (void)k; (void)A; (void)B;
  helper_that_does_not_exist(C);
}
