/* abort() signals the process itself (tgkill): a crash (SIGABRT), not a forbidden call. */
#include <stdlib.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  (void)m; (void)n; (void)k; (void)A; (void)B; (void)C;
  abort();
}
