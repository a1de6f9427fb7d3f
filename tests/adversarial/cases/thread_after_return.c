// expect: forbidden
// why: returns at once and lets a thread do the work after the clock stops
typedef unsigned long pthread_t;
int pthread_create(pthread_t *, const void *, void *(*)(void *), void *);
struct job { int m, n, k; const double *A, *B; double *C; };
static struct job job;
static void *work(void *arg) { (void)arg; for (int i = 0; i < job.m * job.n; ++i) { double s = 0; for (int p = 0; p < job.k; ++p) s += job.A[(i / job.n) * job.k + p] * job.B[p * job.n + i % job.n]; job.C[i] = s; } return 0; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { pthread_t t; job = (struct job){m, n, k, A, B, C}; pthread_create(&t, 0, work, 0); }
