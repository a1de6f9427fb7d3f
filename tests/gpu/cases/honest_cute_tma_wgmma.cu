// expect: ok   problem: cuda-hgemm-4096   stage: cuda-hopper
// The generator's TUNED Hopper kernel (hopper_kernels.py, rendered as it is): CuTe TMA loads into a
// 4-slot ring of PipelineTmaAsync mbarriers, a producer warpgroup and two consumer warpgroups issuing
// SM90 wgmma; its tensor maps from cudaGetDriverEntryPointByVersion (cuTensorMapEncodeTiled).
// h128x256x64-s4-w2-P-c1-g8 (cuda-hgemm): CuTe, TMA loads and wgmma (warpgroup MMA), fp32 accumulation
#define NDEBUG  // CUTLASS's pipeline: no debug traps
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <cute/tensor.hpp>
#include <cute/arch/cluster_sm90.hpp>
#include <cutlass/numeric_types.h>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/pipeline/sm90_pipeline.hpp>

using namespace cute;

typedef __half Elem;          // the entry point's element type
typedef cute::half_t T;     // the same bits, as CuTe names them
constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4;
constexpr int CONSUMERS = 2;          // wgmma warpgroups
constexpr bool PRODUCER = true;           // a TMA warpgroup of its own
constexpr int CLUSTER = 1, GROUP = 8;
constexpr int THREADS = 128 * (CONSUMERS + (PRODUCER ? 1 : 0));
constexpr int SMEM = 198656;                   // dynamic shared memory, bytes (1024 of them to align the base)

// Shared tiles: A (BM, BK) K-major, B (BN, BK) N-major, 128-byte swizzled, STAGES slots of each.
using SmemLayoutA = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{}, make_shape(Int<BM>{}, Int<BK>{}, Int<STAGES>{})));
// B's atoms (64 N x 8 K) go along K first, as CUTLASS orders an MN-major operand: each 64-column
// strip of a slot is one contiguous 64 x BK box for the TMA.
using SmemLayoutB = decltype(tile_to_shape(GMMA::Layout_MN_SW128_Atom<T>{}, make_shape(Int<BN>{}, Int<BK>{}, Int<STAGES>{}),
                                           Step<_2, _1, _3>{}));
// CONSUMERS warpgroups along M, each issuing 64 x BN x 16 wgmma from shared memory.
using TiledMma = decltype(make_tiled_mma(SM90_64x256x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::MN>{}, Layout<Shape<Int<CONSUMERS>, _1, _1>>{}));
using ClusterShape = Shape<Int<CLUSTER>, _1, _1>;
using Pipeline = cutlass::PipelineTmaAsync<STAGES>;
using PipelineState = typename Pipeline::PipelineState;

struct alignas(1024) SharedStorage {
  alignas(1024) ArrayEngine<T, cosize_v<SmemLayoutA>> A;
  alignas(1024) ArrayEngine<T, cosize_v<SmemLayoutB>> B;
  typename Pipeline::SharedStorage pipeline;
};
static_assert(sizeof(SharedStorage) + 1024 <= SMEM, "shared storage");
constexpr uint32_t TMA_BYTES = (BM * BK + BN * BK) * sizeof(T);  // what lands in one slot of this block

template <class TmaA, class TmaB>
__global__ void __launch_bounds__(THREADS, 1)
gemm_tma(int m, int n, int k, CUTE_GRID_CONSTANT TmaA const tma_a, CUTE_GRID_CONSTANT TmaB const tma_b, Elem *Cp) {
  extern __shared__ unsigned char smem_raw[];
  // The 128-byte swizzle repeats every 1024 bytes: the storage starts on such a boundary.
  const uint32_t misaligned = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw)) % 1024;
  SharedStorage &smem = *reinterpret_cast<SharedStorage *>(smem_raw + (1024 - misaligned) % 1024);

  // This block's tile: clusters of CLUSTER tiles along M; GROUP cluster rows walked column by column.
  const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  const int cluster_rows = (tiles_m + CLUSTER - 1) / CLUSTER;
  const int cid = blockIdx.x / CLUSTER, rank = blockIdx.x % CLUSTER;
  const int first = cid / (GROUP * tiles_n) * GROUP;
  const int rows = min(cluster_rows - first, GROUP);
  const int within = cid % (GROUP * tiles_n);
  const int tile_m = (first + within % rows) * CLUSTER + rank, tile_n = within / rows;

  if (threadIdx.x == 0) {
    cute::prefetch_tma_descriptor(tma_a.get_tma_descriptor());
    cute::prefetch_tma_descriptor(tma_b.get_tma_descriptor());
  }

  typename Pipeline::Params params;
  params.transaction_bytes = TMA_BYTES;
  params.num_consumers = 128 * CONSUMERS;
  params.initializing_warp = 0;
  const int warp_group = threadIdx.x / 128;  // 0: the producer
  params.role = warp_group == 0 ? Pipeline::ThreadCategory::Producer : Pipeline::ThreadCategory::Consumer;
  params.is_leader = threadIdx.x == 0;
  Pipeline pipeline(smem.pipeline, params, ClusterShape{});
  // Every block's barriers are initialized before any block's TMA or arrival can reach them.
  __syncthreads();

  Tensor mA = tma_a.get_tma_tensor(make_shape(m, k));                                   // (M,K)
  Tensor mB = tma_b.get_tma_tensor(make_shape(n, k));                                   // (N,K)
  Tensor gA = local_tile(mA, make_shape(Int<BM>{}, Int<BK>{}), make_coord(tile_m, _));  // (BM,BK,k tiles)
  Tensor gB = local_tile(mB, make_shape(Int<BN>{}, Int<BK>{}), make_coord(tile_n, _));  // (BN,BK,k tiles)
  Tensor sA = make_tensor(make_smem_ptr(smem.A.begin()), SmemLayoutA{});                 // (BM,BK,STAGES)
  Tensor sB = make_tensor(make_smem_ptr(smem.B.begin()), SmemLayoutB{});                 // (BN,BK,STAGES)
  const int k_tiles = (k + BK - 1) / BK;

  // TMA: A's tile from this block alone; B's split over the cluster, each half sent to both blocks.
  auto block_tma_a = tma_a.get_slice(0);
  auto block_tma_b = tma_b.get_slice(rank);
  Tensor tAgA = block_tma_a.partition_S(gA);  // (TMA,TMA_M,TMA_K,k tiles)
  Tensor tAsA = block_tma_a.partition_D(sA);  // (TMA,TMA_M,TMA_K,STAGES)
  Tensor tBgB = block_tma_b.partition_S(gB);
  Tensor tBsB = block_tma_b.partition_D(sB);
  auto load = [&](PipelineState &write, int t) {
    pipeline.producer_acquire(write);  // the slot is free in every block it goes to; expects TMA_BYTES
    auto *barrier = pipeline.producer_get_barrier(write);
    copy(tma_a.with(*barrier), tAgA(_, _, _, t), tAsA(_, _, _, write.index()));
    copy(tma_b.with(*barrier), tBgB(_, _, _, t), tBsB(_, _, _, write.index()));
    ++write;
  };

  PipelineState write = cutlass::make_producer_start_state<Pipeline>();
  if (warp_group == 0) {  // the producer: one thread issues every TMA load
    cutlass::arch::warpgroup_reg_dealloc<40>();
    if (threadIdx.x == 0) {  // the pipeline's leader: it expects each slot's bytes
      for (int t = 0; t < k_tiles; ++t) load(write, t);
    }
    return;
  }
  cutlass::arch::warpgroup_reg_alloc<232>();
  const int consumer_thread = threadIdx.x - 128;

  TiledMma mma;
  ThrMMA thr = mma.get_thread_slice(consumer_thread);
  Tensor tCsA = thr.partition_A(sA);                       // (MMA,MMA_M,MMA_K,STAGES)
  Tensor tCsB = thr.partition_B(sB);                       // (MMA,MMA_N,MMA_K,STAGES)
  Tensor tCrA = thr.make_fragment_A(tCsA);                 // wgmma descriptors of the slots
  Tensor tCrB = thr.make_fragment_B(tCsB);
  Tensor mC = make_tensor(make_gmem_ptr(reinterpret_cast<T *>(Cp)), make_shape(m, n), make_stride(n, Int<1>{}));
  Tensor gC = local_tile(mC, make_shape(Int<BM>{}, Int<BN>{}), make_coord(tile_m, tile_n));
  Tensor cC = local_tile(make_identity_tensor(make_shape(m, n)), make_shape(Int<BM>{}, Int<BN>{}),
                         make_coord(tile_m, tile_n));  // (row, column) of each element of the tile
  Tensor tCgC = thr.partition_C(gC);                       // (MMA,MMA_M,MMA_N)
  Tensor tCcC = thr.partition_C(cC);
  Tensor acc = thr.make_fragment_C(tCgC);                  // fp32

  PipelineState read, release;
  // k tile 0: the first wgmma of the tile overwrites the accumulators, the rest add to them.
  mma.accumulate_ = GMMA::ScaleOut::Zero;
  warpgroup_fence_operand(acc);
  pipeline.consumer_wait(read);
  warpgroup_arrive();
  CUTE_UNROLL
  for (int kb = 0; kb < size<2>(tCrA); ++kb) {
    cute::gemm(mma, tCrA(_, _, kb, read.index()), tCrB(_, _, kb, read.index()), acc);
    mma.accumulate_ = GMMA::ScaleOut::One;
  }
  warpgroup_commit_batch();
  ++read;
  warpgroup_fence_operand(acc);
  // Then one k tile's wgmma in flight while the next slot is waited for.
  CUTE_NO_UNROLL
  for (int t = 1; t < k_tiles; ++t) {
    pipeline.consumer_wait(read);
    warpgroup_fence_operand(acc);
    warpgroup_arrive();
    cute::gemm(mma, tCrA(_, _, _, read.index()), tCrB(_, _, _, read.index()), acc);
    warpgroup_commit_batch();
    warpgroup_wait<1>();  // tile t - 1's wgmma are done: its slot can be refilled
    warpgroup_fence_operand(acc);
    pipeline.consumer_release(release);
    ++release;
    ++read;
  }
  warpgroup_wait<0>();
  warpgroup_fence_operand(acc);
  pipeline.consumer_release(release);

  // Epilogue: T from fp32, two neighbouring columns at a time where both are inside C.
  CUTE_UNROLL
  for (int i = 0; i < size(acc); i += 2) {
    const int r = get<0>(tCcC(i)), c = get<1>(tCcC(i));
    if (r >= m) continue;
    const bool pair = c % 2 == 0 && get<0>(tCcC(i + 1)) == r && get<1>(tCcC(i + 1)) == c + 1;
    if (pair && c + 1 < n) {
      *reinterpret_cast<__half2 *>(&tCgC(i)) = __floats2half2_rn(acc(i), acc(i + 1));
    } else {
      if (c < n) tCgC(i) = T(acc(i));
      const int r1 = get<0>(tCcC(i + 1)), c1 = get<1>(tCcC(i + 1));
      if (r1 < m && c1 < n) tCgC(i + 1) = T(acc(i + 1));
    }
  }
}

// Any m, n, k, any alignment: C = A B through 16 x 16 shared tiles, fp32 accumulation.
constexpr int FT = 16;
__global__ void __launch_bounds__(FT * FT) gemm_any(int m, int n, int k, const Elem *A, const Elem *B, Elem *C) {
  __shared__ float As[FT][FT + 1], Bs[FT][FT + 1];
  const int tx = threadIdx.x % FT, ty = threadIdx.x / FT;
  const int r = blockIdx.y * FT + ty, c = blockIdx.x * FT + tx;
  float acc = 0.0f;
  for (int p0 = 0; p0 < k; p0 += FT) {
    As[ty][tx] = r < m && p0 + tx < k ? __half2float(A[static_cast<size_t>(r) * k + p0 + tx]) : 0.0f;
    Bs[ty][tx] = p0 + ty < k && c < n ? __half2float(B[static_cast<size_t>(p0 + ty) * n + c]) : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < FT; ++p) acc += As[ty][p] * Bs[p][tx];
    __syncthreads();
  }
  if (r < m && c < n) C[static_cast<size_t>(r) * n + c] = __float2half(acc);
}

static bool aligned16(const void *p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

extern "C" void matmul(int m, int n, int k, const Elem *A, const Elem *B, Elem *C) {
  // A tensor map needs 16-byte aligned bases and row strides (k and n multiples of 8 elements).
  if (k % 8 != 0 || n % 8 != 0 || !aligned16(A) || !aligned16(B) || !aligned16(C)) {
    const dim3 grid((n + FT - 1) / FT, (m + FT - 1) / FT);
    gemm_any<<<grid, FT * FT>>>(m, n, k, A, B, C);
    return;
  }
  // The tensor maps (host-side descriptors of A and B: address, shape, strides, box) are made
  // again only when one of those changes; nothing else is kept from call to call.
  auto make_maps = [&] {
    Tensor mA = make_tensor(make_gmem_ptr(reinterpret_cast<const T *>(A)), make_shape(m, k), make_stride(k, Int<1>{}));
    Tensor mB = make_tensor(make_gmem_ptr(reinterpret_cast<const T *>(B)), make_shape(n, k), make_stride(Int<1>{}, n));
    return cute::make_tuple(make_tma_copy(SM90_TMA_LOAD{}, mA, SmemLayoutA{}(_, _, 0)),
                            make_tma_copy(SM90_TMA_LOAD{}, mB, SmemLayoutB{}(_, _, 0), Int<CLUSTER>{}));
  };
  using Maps = decltype(make_maps());
  struct Key {
    const void *a, *b;
    int m, n, k;
    bool operator==(const Key &other) const {
      return a == other.a && b == other.b && m == other.m && n == other.n && k == other.k;
    }
  };
  const Key key{A, B, m, n, k};
  static Key made{};
  static Maps maps = (made = key, make_maps());
  if (!(made == key)) {
    maps = make_maps();
    made = key;
  }
  auto *kernel = &gemm_tma<cute::remove_cvref_t<decltype(get<0>(maps))>, cute::remove_cvref_t<decltype(get<1>(maps))>>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  const dim3 grid((tiles_m + CLUSTER - 1) / CLUSTER * CLUSTER * tiles_n);
  kernel<<<grid, THREADS, SMEM>>>(m, n, k, get<0>(maps), get<1>(maps), C);
}
