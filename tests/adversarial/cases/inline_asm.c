// expect: forbidden
void matmul(int m, int n, int k, const double *A, const double *B, double *C) { __asm__ volatile("mov $60, %%eax; xor %%edi, %%edi; syscall" ::: "rax", "rdi"); }
