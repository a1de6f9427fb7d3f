// expect: wrong_answer
// why: recomputes only for pointer triples it has not seen; replays nothing (C is poisoned)
static const void *seen[16][3];
static int count;
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int s = 0; s < count; ++s)
    if (seen[s][0] == A && seen[s][1] == B && seen[s][2] == C) return;
  if (count < 16) {
    seen[count][0] = A; seen[count][1] = B; seen[count][2] = C;
    ++count;
  }
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
