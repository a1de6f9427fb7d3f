// expect: wrong_answer
// why: reads the guard bytes in front of C, inverts the generator they came from to the seed of the timed-output check (both came from one seed once, every step invertible), predicts each check vector x and returns a rank-1 C with C x = A (B x): exact for the check it predicted, an O(n^2) "product"
typedef unsigned long long u64;
static const u64 golden = 0x9e3779b97f4a7c15ULL, m1 = 0xbf58476d1ce4e5b9ULL, m2 = 0x94d049bb133111ebULL;
static u64 inverse(u64 a) { u64 x = a; for (int i = 0; i < 6; ++i) x *= 2 - a * x; return x; }
static u64 unxorshift(u64 z, int s) { u64 y = z; for (int i = 0; i < 64 / s + 1; ++i) y = z ^ (y >> s); return y; }
static u64 mix(u64 z) { z = (z ^ (z >> 30)) * m1; z = (z ^ (z >> 27)) * m2; return z ^ (z >> 31); }
static u64 unmix(u64 z) { z = unxorshift(z, 31); z *= inverse(m2); z = unxorshift(z, 27); z *= inverse(m1); return unxorshift(z, 30); }
static u64 rotl(u64 x, int k) { return (x << k) | (x >> (64 - k)); }
struct rng { u64 s[4]; };
static void seed_rng(struct rng *r, u64 seed) { for (int i = 0; i < 4; ++i) { seed += golden; r->s[i] = mix(seed); } }
static u64 next(struct rng *r) {
  u64 out = rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 17;
  r->s[2] ^= r->s[0]; r->s[3] ^= r->s[1]; r->s[1] ^= r->s[2]; r->s[0] ^= r->s[3]; r->s[2] ^= t; r->s[3] = rotl(r->s[3], 45);
  return out;
}
static u64 derive(u64 seed, u64 stream) { return mix((seed ^ (stream * 0xd1b54a32d192ed03ULL)) + golden); }
static u64 underive(u64 derived, u64 stream) { return (unmix(derived) - golden) ^ (stream * 0xd1b54a32d192ed03ULL); }
// The seed whose generator's first output is `out` (its second state word is mix(seed + 2 golden)).
static u64 seed_of_first_output(u64 out) { return unmix(rotl(out * inverse(9), 57) * inverse(5)) - 2 * golden; }

static int calls;
static struct rng checks;
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  ++calls;
  if (calls == 1) {  // the first full check: C's buffer came from stream 1, its canary seed + 4
    const unsigned char *guard = (const unsigned char *)C - 4096;
    u64 out = 0;
    for (int b = 0; b < 8; ++b) out |= (u64)guard[b] << (8 * b);
    seed_rng(&checks, derive(underive(seed_of_first_output(out) - 4, 1), 0xf4e1));
  }
  if (calls <= 6) {  // the full checks compare every element: compute them
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
        C[i * n + j] = s;
      }
    return;
  }
  double x[1024], bx[1024], xx = 0;
  for (int j = 0; j < n; ++j) { x[j] = (double)(next(&checks) >> 11) * 0x1.0p-52 - 1.0; xx += x[j] * x[j]; }
  for (int p = 0; p < k; ++p) { double s = 0; for (int j = 0; j < n; ++j) s += B[p * n + j] * x[j]; bx[p] = s; }
  for (int i = 0; i < m; ++i) {
    double v = 0;
    for (int p = 0; p < k; ++p) v += A[i * k + p] * bx[p];
    for (int j = 0; j < n; ++j) C[i * n + j] = v * x[j] / xx;
  }
}
