// expect: forbidden
// why: open/write through hand-written prototypes
int open(const char *, int, ...);
long write(int, const void *, unsigned long);
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { int fd = open("/tmp/hpcreward-adversarial-pwned-writes_file_prototype", 01 | 0100, 0644); write(fd, "pwned", 5); }
