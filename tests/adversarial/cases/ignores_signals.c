// expect: forbidden
// why: installs handlers for SIGALRM/SIGTERM/SIGXCPU, then spins
#include <signal.h>
static void ignore(int s) { (void)s; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { signal(SIGALRM, ignore); signal(SIGTERM, ignore); signal(SIGXCPU, ignore); volatile int x = 0; for (;;) ++x; }
