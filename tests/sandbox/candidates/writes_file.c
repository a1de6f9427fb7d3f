/* Correct, but creates a file outside its directory first (the test fills in the path). */
#include <fcntl.h>
#include <unistd.h>
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  int fd = open("@PWNED_PATH@", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    (void)write(fd, "pwned\n", 6);
    close(fd);
  }
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
