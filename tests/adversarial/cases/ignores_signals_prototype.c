// expect: forbidden
// why: the same through a hand-written prototype of signal()
typedef void (*handler_t)(int);
handler_t signal(int, handler_t);
static void ignore(int s) { (void)s; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { signal(14, ignore); signal(15, ignore); signal(24, ignore); volatile int x = 0; for (;;) ++x; }
