// expect: ok   problem: cuda-sgemm-4096   stage: cuda-tensor
// TF32 tensor cores fed raw fp32 bits: the generator's b128x128x8-t1x4 WMMA kernel without its
// __float_to_tf32 conversions, so the hardware truncates each operand to TF32 instead of
// rounding it. Honest (TF32 is what CUDA sgemm allows); its one-sided error once pushed the
// timed residual check's normwise figure over its bound at 4096 (docs/reward-integrity.md).
#include <cuda_runtime.h>
#include <mma.h>
using namespace nvcuda;
typedef float T;      // element type of A, B, C
typedef float Acc;  // accumulation type
static __device__ __forceinline__ T from_acc(Acc x) { return x; }
constexpr int BM = 128, BN = 128, TM = 1, TN = 4;
constexpr int FM = 16, FN = 16, FK = 8;  // one WMMA fragment
constexpr int WARPS_M = BM / (TM * FM), WARPS_N = BN / (TN * FN);
constexpr int THREADS = 32 * WARPS_M * WARPS_N;
constexpr int BK = 8, STAGES = 1, V = 1;  // V: elements per copy chunk
constexpr int LDA = BK + 0, LDB = BN + 0;  // shared row strides
// Copies a ROWS x COLS slice (row stride ld; rows_left x cols_left of it inside the matrix)
// into shared memory, zero beyond the edges. Whole in-range, aligned chunks are copied at
// once; the rest (edges, rows that start unaligned) one element at a time.
template <int ROWS, int COLS, int LD>
static __device__ __forceinline__ void load_tile(T *dst, const T *src, int ld, int rows_left, int cols_left) {
  for (int idx = threadIdx.x; idx < ROWS * (COLS / V); idx += THREADS) {
    const int r = idx / (COLS / V), c = idx % (COLS / V) * V;
    T *d = dst + r * LD + c;
    const T *s = src + static_cast<size_t>(r) * ld + c;
    if (r < rows_left && c + V <= cols_left) {
      *d = *s;
    } else {
      for (int e = 0; e < V; ++e)
        d[e] = r < rows_left && c + e < cols_left ? s[e] : T(0);
    }
  }
}
// Each warp: TM x TN WMMA fragments of C, from fragments loaded out of the shared slices.
__global__ void __launch_bounds__(THREADS) gemm(int m, int n, int k, const T *A, const T *B, T *C) {
  __shared__ __align__(32) T As[STAGES][BM * LDA];
  __shared__ __align__(32) T Bs[STAGES][BK * LDB];
  __shared__ __align__(32) Acc Cs[THREADS / 32][FM * FN];  // one fragment per warp, for the edges
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = warp / WARPS_N * TM * FM, wn = warp % WARPS_N * TN * FN;  // the warp's corner in the tile
  wmma::fragment<wmma::accumulator, FM, FN, FK, Acc> acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) wmma::fill_fragment(acc[i][j], Acc(0));
  // Slice t of A (BM x BK) and of B (BK x BN) into buffer `buf`.
  const int r0 = blockIdx.y * BM, c0 = blockIdx.x * BN;
  auto load_slice = [&](int buf, int t) {
    const int p0 = t * BK;
    load_tile<BM, BK, LDA>(As[buf], A + static_cast<size_t>(r0) * k + p0, k, m - r0, k - p0);
    load_tile<BK, BN, LDB>(Bs[buf], B + static_cast<size_t>(p0) * n + c0, n, k - p0, n - c0);
  };
  const int slices = (k + BK - 1) / BK;
  for (int t = 0; t < slices; ++t) {
    load_slice(0, t);
    __syncthreads();
    const T *as = As[0], *bs = Bs[0];
#pragma unroll
    for (int kk = 0; kk < BK; kk += FK) {
      wmma::fragment<wmma::matrix_a, FM, FN, FK, wmma::precision::tf32, wmma::row_major> a[TM];
      wmma::fragment<wmma::matrix_b, FM, FN, FK, wmma::precision::tf32, wmma::row_major> b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) wmma::load_matrix_sync(a[i], as + (wm + i * FM) * LDA + kk, LDA);
#pragma unroll
      for (int j = 0; j < TN; ++j) wmma::load_matrix_sync(b[j], bs + kk * LDB + wn + j * FN, LDB);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();  // before the next slice overwrites the buffers
  }
  // Through shared memory, so that only the elements inside C are written.
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      wmma::store_matrix_sync(Cs[warp], acc[i][j], FN, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < FM * FN; e += 32) {
        const int r = blockIdx.y * BM + wm + i * FM + e / FN, c = blockIdx.x * BN + wn + j * FN + e % FN;
        if (r < m && c < n) C[static_cast<size_t>(r) * n + c] = from_acc(Cs[warp][e]);
      }
      __syncwarp();
    }
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
  gemm<<<grid, THREADS>>>(m, n, k, A, B, C);
}
