// The syntax-tree side: what libclang shows for each candidate, comments and strings never
// counting.
#include "techniques/source_techniques.hpp"

#include <gtest/gtest.h>

#include "tests/techniques/candidates.hpp"

namespace hpcreward::techniques {
namespace {

using namespace testing;

const std::vector<std::string> kO3 = {"-O3"};
const std::vector<std::string> kOmp = {"-O3", "-fopenmp"};
const std::vector<std::string> kAvx = {"-O3", "-mavx512f"};

TEST(SourceTechniques, OpenmpDirectiveNeedsTheFlag) {
  EXPECT_GT(detect_in_source(kOpenmp, kOmp).omp_directives, 0);
  // Without -fopenmp the pragma compiles away, and clang builds no directive.
  EXPECT_EQ(detect_in_source(kOpenmp, kO3).omp_directives, 0);
  EXPECT_EQ(detect_in_source(kPlainIkj, kOmp).omp_directives, 0);
}

TEST(SourceTechniques, Avx512Intrinsics) {
  const SourceTechniques found = detect_in_source(kAvx512, kAvx);
  EXPECT_GT(found.avx512_uses, 0);
  EXPECT_NE(found.evidence.find("_mm512_"), std::string::npos) << found.evidence;
  // Parsed without the target flags the uses are still seen (gcc would refuse to compile).
  EXPECT_GT(detect_in_source(kAvx512, kO3).avx512_uses, 0);
  EXPECT_EQ(detect_in_source(kPlainIkj, kAvx).avx512_uses, 0);
}

TEST(SourceTechniques, CommentsAndStringsNeverCount) {
  const SourceTechniques found = detect_in_source(kMentionsOnly, {"-O3", "-fopenmp", "-mavx512f"});
  EXPECT_TRUE(found.parsed);
  EXPECT_EQ(found.omp_directives, 0);
  EXPECT_EQ(found.avx512_uses, 0);
  EXPECT_FALSE(found.blocking);
  EXPECT_EQ(found.loop_order, "ikj");
}

TEST(SourceTechniques, LoopOrder) {
  EXPECT_EQ(detect_in_source(kPlainIjk, kO3).loop_order, "ijk");
  EXPECT_EQ(detect_in_source(kPlainIkj, kO3).loop_order, "ikj");
  EXPECT_EQ(detect_in_source(kOpenmp, kOmp).loop_order, "ikj");
}

TEST(SourceTechniques, LoopOrderThroughIndexMacros) {
  const SourceTechniques found = detect_in_source(kMacroIndexed, kO3);
  EXPECT_EQ(found.loop_order, "ikj") << found.evidence;
}

TEST(SourceTechniques, IntrinsicsBelowAvx512) {
  const SourceTechniques found = detect_in_source(kSse3, kO3);
  EXPECT_GT(found.simd_uses, 0) << found.evidence;
  EXPECT_EQ(found.avx512_uses, 0);
  EXPECT_NE(found.evidence.find("_mm_"), std::string::npos) << found.evidence;
  EXPECT_EQ(detect_in_source(kPlainIkj, kO3).simd_uses, 0);
  EXPECT_EQ(detect_in_source(kAvx512, kAvx).simd_uses, 0);
}

TEST(SourceTechniques, BlockingAcrossFunctions) {
  const SourceTechniques found = detect_in_source(kGotoBlas, kO3);
  EXPECT_TRUE(found.blocking) << found.evidence;
  EXPECT_EQ(found.tile_sizes, (std::vector<int>{256, 128})) << found.evidence;
  // A strip that hands a helper the whole of k blocks nothing.
  const SourceTechniques strip = detect_in_source(kStripCallsHelper, kO3);
  EXPECT_FALSE(strip.blocking) << strip.evidence;
}

// A textbook's blocking (how-to-optimize-gemm's last steps): block bounds assigned to
// variables declared earlier, and the loop over the k block two calls below the tile loop (the
// tile loop calls a kernel, which calls the micro-kernel that runs over it). Without the tile
// loop over k there is no blocking.
TEST(SourceTechniques, BlockingWithAssignedBoundsTwoCallsDown) {
  const std::string kernel = R"(
#define min(a, b) ((a) < (b) ? (a) : (b))
static void dot_block(int kb, const double *a, const double *b, int n, double *c) {
  for (int p = 0; p < kb; ++p) *c += a[p] * b[(long)p * n];
}
static void inner(int mb, int n, int kb, const double *A, int k, const double *B, double *C) {
  for (int i = 0; i < mb; ++i)
    for (int j = 0; j < n; ++j) dot_block(kb, &A[(long)i * k], &B[j], n, &C[(long)i * n + j]);
}
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  int i, p, ib, pb;
  for (int x = 0; x < m * n; ++x) C[x] = 0;
  for (p = 0; p < k; p += 128) {
    pb = min(k - p, 128);
    for (i = 0; i < m; i += 64) {
      ib = min(m - i, 64);
      inner(ib, n, pb, &A[(long)i * k + p], k, &B[(long)p * n], &C[(long)i * n]);
    }
  }
}
)";
  const SourceTechniques found = detect_in_source(kernel, kO3);
  EXPECT_TRUE(found.blocking) << found.evidence;
  EXPECT_EQ(found.tile_sizes, (std::vector<int>{128, 64})) << found.evidence;
}

TEST(SourceTechniques, TwoLevelBlocking) {
  const SourceTechniques found = detect_in_source(kBlocked2, kO3);
  EXPECT_TRUE(found.blocking) << found.evidence;
  EXPECT_EQ(found.tile_sizes, (std::vector<int>{64, 32})) << found.evidence;
  EXPECT_EQ(found.loop_order, "ikj");
}

TEST(SourceTechniques, ThreeLevelBlocking) {
  const SourceTechniques found = detect_in_source(kBlocked3, kO3);
  EXPECT_TRUE(found.blocking) << found.evidence;
  EXPECT_EQ(found.tile_sizes, (std::vector<int>{128, 256, 64})) << found.evidence;
  EXPECT_EQ(found.loop_order, "ikj");
}

TEST(SourceTechniques, NoBlockingInPlainOrUnrolledLoops) {
  EXPECT_FALSE(detect_in_source(kPlainIjk, kO3).blocking);
  EXPECT_FALSE(detect_in_source(kUnrolledNotTiled, kO3).blocking);
  EXPECT_FALSE(detect_in_source(kAvx512, kAvx).blocking);
}

// The red team's twin: the work is an untiled i-k-j nest; a j-k-i tiled nest under a
// condition no harness shape satisfies set the descriptor and opened niches.
constexpr const char *kDeadTiledTwin = R"(
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  if (m < 0) {
    for (int jj = 0; jj < n; jj += 64)
      for (int j = jj; j < jj + 64 && j < n; ++j)
        for (int p = 0; p < k; ++p)
          for (int i = 0; i < m; ++i) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
}
)";

constexpr const char *kDeadElseAndForAndCallee = R"(
static void variant(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int ii = 0; ii < m; ii += 32)
    for (int i = ii; i < ii + 32 && i < m; ++i)
      for (int j = 0; j < n; ++j)
        for (int p = 0; p < k; ++p) C[i * n + j] += A[i * k + p] * B[p * n + j];
}
static void unused(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int jj = 0; jj < n; jj += 16)
    for (int j = jj; j < jj + 16; ++j)
      for (int p = 0; p < k; ++p)
        for (int i = 0; i < m; ++i) C[i * n + j] += A[i * k + p] * B[p * n + j];
}
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int jj = 0; m == 0 && jj < n; jj += 8)
    for (int j = jj; j < jj + 8; ++j)
      for (int p = 0; p < k; ++p)
        for (int i = 0; i < m; ++i) C[i * n + j] += A[i * k + p] * B[p * n + j];
  while (n < 1) variant(m, n, k, A, B, C);
  if (k > 0) {
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p)
        for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  } else {
    variant(m, n, k, A, B, C);
  }
}
)";

// Branches that may run keep counting: a fast path for multiples of the tile, and a
// parameter the body writes (so its value is no longer the shape's).
constexpr const char *kLiveBranches = R"(
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  const int rows = m;
  m = -1;
  if (m < 0) {
    for (int ii = 0; ii < rows; ii += 64)
      for (int i = ii; i < ii + 64 && i < rows; ++i)
        for (int p = 0; p < k; ++p)
          for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
  if (n % 64 == 0 && n < 0) { }
}
)";

TEST(SourceTechniques, CodeThatNeverRunsDescribesNothing) {
  const SourceTechniques twin = detect_in_source(kDeadTiledTwin, kO3);
  EXPECT_EQ(twin.loop_order, "ikj") << twin.evidence;
  EXPECT_FALSE(twin.blocking) << twin.evidence;
  EXPECT_TRUE(twin.tile_sizes.empty()) << twin.evidence;
  const SourceTechniques others = detect_in_source(kDeadElseAndForAndCallee, kO3);
  EXPECT_EQ(others.loop_order, "ikj") << others.evidence;
  EXPECT_FALSE(others.blocking) << others.evidence;
}

TEST(SourceTechniques, CodeThatMayRunStillDescribes) {
  const SourceTechniques found = detect_in_source(kLiveBranches, kO3);
  EXPECT_TRUE(found.blocking) << found.evidence;
  EXPECT_EQ(found.tile_sizes, (std::vector<int>{64})) << found.evidence;
  EXPECT_EQ(found.loop_order, "ikj") << found.evidence;
}

TEST(SourceTechniques, BrokenSourceDetectsNothing) {
  const SourceTechniques found = detect_in_source(kBroken, kOmp);
  EXPECT_EQ(found.omp_directives, 0);
  EXPECT_EQ(found.avx512_uses, 0);
  EXPECT_FALSE(found.blocking);
  EXPECT_EQ(detect_in_source("", kO3).loop_order, "");
}

}  // namespace
}  // namespace hpcreward::techniques
