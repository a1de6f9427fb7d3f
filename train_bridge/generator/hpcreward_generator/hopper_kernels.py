"""The CUDA family's Hopper rung: a `HopperGenome` and `render_hopper(genome, precision)`, CuTe
kernels of TMA loads and warpgroup MMA (wgmma) for a stage that requires `wgmma` and `tma` with
CuTe's headers on the include path (cuda-hopper of stages/default_ladder.json: "libraries":
["cute"]). Modelled on CUTLASS's own SM90 mainloop (cutlass/gemm/collective/
sm90_mma_tma_gmma_ss_warpspecialized.hpp, examples/cute/tutorial/hopper/wgmma_tma_sm90.cu),
written with what the CuTe stage admits: cute/*, cutlass/arch/*, cutlass/pipeline/*,
cutlass/numeric_types.h.

C[m x n] = A[m x k] * B[k x n], row-major 16-bit operands (fp16 or bf16) and output, fp32
accumulation, through `extern "C" void matmul(int m, int n, int k, const T *A, const T *B, T *C)`.
In CuTe's terms A is (M,K) K-major and B is (N,K) MN-major (its rows of n elements are
contiguous), so A's shared tiles take GMMA::Layout_K_SW128_Atom, B's GMMA::Layout_MN_SW128_Atom,
and the MMA is SM90_64x<BN>x16_F32<T><T>_SS<Major::K, Major::MN>. Each thread block owns a
BM x BN tile of C:

- a ring of `stages` shared-memory slots (BM x 64 of A, BN x 64 of B each), filled by TMA
  (cute::make_tma_copy, SM90_TMA_LOAD) and handed over through cutlass::PipelineTmaAsync's
  mbarriers (full: the TMA's bytes have landed; empty: every consumer is done with the slot);
- `consumers` warpgroups (1 or 2) of wgmma, each a BM / consumers x BN slice of the tile in fp32
  registers, keeping one k-slice of wgmma in flight while the next slot is waited for;
- `producer`: a warpgroup of its own issues the TMA loads (warp-specialized; with two consumer
  warpgroups the registers move to them with setmaxnreg), or else one consumer thread refills
  each slot as soon as every consumer has released it;
- `cluster` 2: two thread blocks of neighbouring M tiles form a cluster and share B's tile, each
  loading half of it with SM90_TMA_LOAD_MULTICAST into both blocks' shared memory;
- `group`: thread blocks walk the tiles `group` tile rows at a time, column by column (1: row
  by row), so that the blocks running together share A and B tiles in L2;
- the epilogue converts the accumulators to T and stores them straight from registers, two
  neighbouring elements at a time, bounds-checked against m and n.

TMA reads tiles beyond m, n and k as zeros, so every m, n, k >= 1 is right; but a tensor map
needs 16-byte aligned base addresses and row strides, so where k or n is not a multiple of 8 (or
a pointer is not 16-byte aligned) the candidate computes with a simple shared-memory kernel of
its own instead (only the nominal shape is timed). The host code calls make_tma_copy (CuTe
fetches cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion) only when A's or B's
address or the shape differs from the call before (the two tensor maps are kept in a
function-local static, made at the first call: no load-time code), cudaFuncSetAttribute
(dynamic shared memory above 48 KiB) and the launch; it prints nothing of its own.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import random
import re

from .problem_kind import ROW_MAJOR, Kind

PRECISIONS = ("f16", "bf16")          # wgmma's 16-bit forms with fp32 accumulation, MN-major B
ELEMENT = {"f16": "__half", "bf16": "__nv_bfloat16"}
CUTE_ELEMENT = {"f16": "cute::half_t", "bf16": "cute::bfloat16_t"}
MMA_NAME = {"f16": "F32F16F16", "bf16": "F32BF16BF16"}
HEADER = {"f16": "cuda_fp16.h", "bf16": "cuda_bf16.h"}
TO_FLOAT = {"f16": "__half2float", "bf16": "__bfloat162float"}
FROM_FLOAT = {"f16": "__float2half", "bf16": "__float2bfloat16"}
PAIR = {"f16": ("__half2", "__floats2half2_rn"), "bf16": ("__nv_bfloat162", "__floats2bfloat162_rn")}

# What the rank's SASS detection finds in every candidate of this family: LDS/STS of the
# fallback kernel and UTMALDG (smem), HGMMA (tensor, wgmma), UTMALDG (async, tma).
TECHNIQUES = ("smem", "tensor", "async", "wgmma", "tma")

BM_SIZES = (64, 128, 256)
BN_SIZES = (64, 128, 192, 256)         # wgmma's N (up to 256)
BK_SIZES = (64,)                       # one 128-byte swizzle row of 16-bit elements
STAGE_COUNTS = (2, 3, 4, 5, 6, 7)
CONSUMER_COUNTS = (1, 2)
CLUSTER_SIZES = (1, 2)
GROUP_SIZES = (1, 8)
MAX_SMEM = 227 * 1024                  # what one block of an H100/H200 may opt in to
MAX_ACCUMULATORS = 128                 # fp32 accumulators per consumer thread (64 x 256 per warpgroup)
SIZE = 2                               # bytes per element


@dataclasses.dataclass(frozen=True)
class HopperGenome:
    bm: int = 128               # rows of C per thread block
    bn: int = 128               # columns of C per thread block (the wgmma's N)
    bk: int = 64                # k per shared-memory slot
    stages: int = 4             # slots in the TMA ring
    consumers: int = 2          # wgmma warpgroups (each BM / consumers rows)
    producer: bool = True       # a TMA warpgroup of its own (warp-specialized)
    cluster: int = 1            # thread blocks per cluster along M (2: B multicast)
    group: int = 8              # tile rows walked together (block rasterization)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @staticmethod
    def from_dict(data: dict) -> "HopperGenome":
        fields = {f.name for f in dataclasses.fields(HopperGenome)}
        return HopperGenome(**{key: value for key, value in data.items() if key in fields})

    def label(self) -> str:
        return (f"h{self.bm}x{self.bn}x{self.bk}-s{self.stages}-w{self.consumers}"
                f"-{'P' if self.producer else 'n'}-c{self.cluster}-g{self.group}")

    @staticmethod
    def from_label(label: str) -> "HopperGenome":
        """The genome a label() names (labels encode every gene). ValueError if it names none."""
        match = LABEL.fullmatch(label) if isinstance(label, str) else None
        if not match:
            raise ValueError(f"{label!r} is not a Hopper genome label (hBMxBNxBK-sSTAGES-wCONSUMERS-P|n-cCLUSTER-gGROUP, "
                             "e.g. h128x256x64-s4-w2-P-c1-g8)")
        genome = HopperGenome(bm=int(match["bm"]), bn=int(match["bn"]), bk=int(match["bk"]),
                              stages=int(match["stages"]), consumers=int(match["consumers"]),
                              producer=match["producer"] == "P", cluster=int(match["cluster"]),
                              group=int(match["group"]))
        if genome.label() != label:  # leading zeros: not a label label() writes
            raise ValueError(f"{label!r} is not a Hopper genome label as the generator writes it ({genome.label()!r})")
        return genome


LABEL = re.compile(r"h(?P<bm>\d+)x(?P<bn>\d+)x(?P<bk>\d+)-s(?P<stages>\d+)-w(?P<consumers>\d+)"
                   r"-(?P<producer>[Pn])-c(?P<cluster>\d+)-g(?P<group>\d+)")

# Every gene and the values a mutation draws from (booleans flip).
GENE_VALUES = {"bm": BM_SIZES, "bn": BN_SIZES, "bk": BK_SIZES, "stages": STAGE_COUNTS,
               "consumers": CONSUMER_COUNTS, "producer": (False, True), "cluster": CLUSTER_SIZES,
               "group": GROUP_SIZES}


def techniques(genome: HopperGenome) -> tuple[str, ...]:
    return TECHNIQUES


def is_hopper_stage(stage: tuple) -> bool:
    """Whether a stage's (allows, requires) is this family's: it requires wgmma or tma, which
    only these kernels have (a stage that merely allows them, by allowing tensor and async,
    keeps the classic family: it has no CuTe headers)."""
    _, requires = stage
    return "wgmma" in requires or "tma" in requires


def fits_stage(stage: tuple) -> bool:
    """Whether this family's candidates (TECHNIQUES) pass a stage's (allows, requires): a
    refinement (wgmma, tma) is allowed where what it refines (tensor, async) is."""
    allows, requires = stage
    refines = {"wgmma": "tensor", "tma": "async"}
    allowed = all(t in allows or refines.get(t) in allows for t in TECHNIQUES)
    return allowed and set(requires) <= set(TECHNIQUES)


def threads(genome: HopperGenome) -> int:
    return 128 * (genome.consumers + (1 if genome.producer else 0))


def accumulators(genome: HopperGenome) -> int:
    """fp32 accumulators per consumer thread."""
    return genome.bm // genome.consumers * genome.bn // 128


def shared_bytes(genome: HopperGenome) -> int:
    """Dynamic shared memory: the slots of A and B (1024-byte aligned for the 128-byte swizzle),
    the pipeline's barriers, and 1024 bytes of slack to align the base."""
    g = genome
    tiles = g.stages * (g.bm + g.bn) * g.bk * SIZE
    barriers = -(-16 * g.stages // 1024) * 1024
    return tiles + barriers + 1024


def problems(genome: HopperGenome, precision: str, kind: Kind = ROW_MAJOR) -> list[str]:
    """Why `genome` cannot be rendered for `precision` and `kind` (empty: it can)."""
    g = genome
    found = []
    if precision not in PRECISIONS:
        found.append(f"no wgmma kernel of this family for {precision} (only {', '.join(PRECISIONS)})")
    if kind != ROW_MAJOR:
        found.append("only row-major operands (layout nn, unbatched)")
    for gene, values in GENE_VALUES.items():
        if getattr(g, gene) not in values:
            found.append(f"{gene}={getattr(g, gene)} is not one of {values}")
    if found:
        return found
    if g.bm % (64 * g.consumers) or g.bm // g.consumers > 128:
        found.append(f"each of {g.consumers} consumer warpgroups takes 64 or 128 rows of the {g.bm}-row tile")
    if accumulators(g) > MAX_ACCUMULATORS:
        found.append(f"{accumulators(g)} fp32 accumulators per thread (at most {MAX_ACCUMULATORS})")
    if shared_bytes(g) > MAX_SMEM:
        found.append(f"{shared_bytes(g)} bytes of shared memory (at most {MAX_SMEM})")
    return found


def is_valid(genome, precision: str, stage: tuple | None = None, kind: Kind = ROW_MAJOR) -> bool:
    if not isinstance(genome, HopperGenome) or problems(genome, precision, kind):
        return False
    return stage is None or fits_stage(stage)


@functools.lru_cache(maxsize=None)
def all_genomes(precision: str, kind: Kind = ROW_MAJOR) -> tuple[HopperGenome, ...]:
    """Every valid genome (a few hundred), in gene order."""
    found = []
    for values in itertools.product(*GENE_VALUES.values()):
        genome = HopperGenome(*values)
        if not problems(genome, precision, kind):
            found.append(genome)
    return tuple(found)


def random_genome(rng: random.Random, precision: str, kind: Kind = ROW_MAJOR) -> HopperGenome:
    return rng.choice(all_genomes(precision, kind))


def descriptor(genome: HopperGenome) -> str:
    """Niche key: techniques, block tile, consumer warpgroups and cluster, ring depth, e.g.
    `smem+tensor+async+wgmma+tma|128x256x64|w2c1|s4`. The producer warpgroup and the
    rasterization tune a kernel of the same shape: such variants compete for one niche."""
    g = genome
    return f"{'+'.join(TECHNIQUES)}|{g.bm}x{g.bn}x{g.bk}|w{g.consumers}c{g.cluster}|s{g.stages}"


def repair(genome, precision: str, rng: random.Random, kind: Kind = ROW_MAJOR) -> HopperGenome:
    """The nearest valid genome. A genome of the classic family (cuda_kernels.CudaGenome, an
    elite of the stage before) keeps its block tile and pipeline depth where this family has
    them; then, if it still cannot render, the valid genome that differs in the fewest genes
    (ties drawn with `rng`)."""
    valid = all_genomes(precision, kind)
    if not valid:
        raise ValueError(f"no Hopper kernel of this family for {precision} ({'; '.join(problems(HopperGenome(), precision, kind))})")
    if not isinstance(genome, HopperGenome):
        def nearest(values, value):
            return min(values, key=lambda v: (abs(v - value), v))
        genome = HopperGenome(bm=nearest(BM_SIZES, getattr(genome, "bm", 128)),
                              bn=nearest(BN_SIZES, getattr(genome, "bn", 128)),
                              stages=nearest(STAGE_COUNTS, max(getattr(genome, "stages", 4), 3)))
    if not problems(genome, precision, kind):
        return genome
    genes = dataclasses.astuple(genome)
    distance = [sum(a != b for a, b in zip(genes, dataclasses.astuple(v))) for v in valid]
    least = min(distance)
    return rng.choice([v for v, d in zip(valid, distance) if d == least])


def mutate(genome, precision: str, rng: random.Random, kind: Kind = ROW_MAJOR) -> HopperGenome:
    """Changes one gene to another of its values, then repairs; another gene is tried until the
    child differs from its parent."""
    if not isinstance(genome, HopperGenome):
        return repair(genome, precision, rng, kind)
    child = genome
    for _ in range(20):
        gene = rng.choice([name for name, values in GENE_VALUES.items() if len(values) > 1])
        value = getattr(genome, gene)
        new = rng.choice([v for v in GENE_VALUES[gene] if v != value])
        child = repair(dataclasses.replace(genome, **{gene: new}), precision, rng, kind)
        if child != genome:
            return child
    return child


def sample_genomes(seed: int, precision: str = "f16", randoms: int = 1) -> list[HopperGenome]:
    """For CI: the smallest and the largest valid genome (genes in field order), one of each
    consumer count x producer x cluster, the tuned default (`TUNED`) and `randoms` random ones."""
    rng = random.Random(seed)
    valid = all_genomes(precision)
    chosen = [valid[0], valid[-1], TUNED]
    for consumers, producer, cluster in itertools.product(CONSUMER_COUNTS, (False, True), CLUSTER_SIZES):
        with_genes = [g for g in valid if (g.consumers, g.producer, g.cluster) == (consumers, producer, cluster)]
        if with_genes:
            chosen.append(with_genes[len(with_genes) // 2])
    chosen += [rng.choice(valid) for _ in range(randoms)]
    return list(dict.fromkeys(chosen))


# The shape CUTLASS's own Hopper kernels favour for large fp16 GEMMs: 128 x 256 x 64 tiles, 4
# slots, two consumer warpgroups and a TMA producer warpgroup.
TUNED = HopperGenome(bm=128, bn=256, bk=64, stages=4, consumers=2, producer=True, cluster=1, group=8)


# --- rendering -------------------------------------------------------------------------------

def render_hopper(genome: HopperGenome, precision: str = "f16", kind: Kind = ROW_MAJOR) -> str:
    """The candidate's CUDA source. Raises ValueError for a genome that `problems()` refuses."""
    found = problems(genome, precision, kind)
    if found:
        raise ValueError(f"{genome.label()} ({precision}): {'; '.join(found)}")
    g = genome
    element, pair, pair_from = ELEMENT[precision], *PAIR[precision]
    multicast = g.cluster > 1
    reconfigure = g.producer and g.consumers == 2  # 384 threads: move registers to the consumers
    values = {
        "@LABEL@": g.label(),
        "@PROBLEM@": "cuda-hgemm" if precision == "f16" else "bf16 problems",
        "@HEADER@": HEADER[precision],
        "@ELEMENT@": element,
        "@CUTE_ELEMENT@": CUTE_ELEMENT[precision],
        "@TO_FLOAT@": TO_FLOAT[precision],
        "@FROM_FLOAT@": FROM_FLOAT[precision],
        "@PAIR@": pair,
        "@PAIR_FROM@": pair_from,
        "@BM@": str(g.bm), "@BN@": str(g.bn), "@BK@": str(g.bk), "@STAGES@": str(g.stages),
        "@CONSUMERS@": str(g.consumers), "@PRODUCER@": "true" if g.producer else "false",
        "@CLUSTER@": str(g.cluster), "@GROUP@": str(g.group),
        "@MMA@": f"SM90_64x{g.bn}x16_{MMA_NAME[precision]}_SS<GMMA::Major::K, GMMA::Major::MN>",
        "@SMEM@": str(shared_bytes(g)),
        "@TMA_B@": "SM90_TMA_LOAD_MULTICAST" if multicast else "SM90_TMA_LOAD",
        "@CLUSTER_DIMS@": f" __cluster_dims__({g.cluster}, 1, 1)" if multicast else "",
        "@B_MASK@": f", static_cast<uint16_t>({(1 << g.cluster) - 1})" if multicast else "",
    }
    source = _TEMPLATE
    source = _choose(source, "WS", g.producer)
    source = _choose(source, "RECONFIG", reconfigure)
    source = _choose(source, "CLUSTER", multicast)
    for key, value in values.items():
        source = source.replace(key, value)
    leftover = re.findall(r"@[A-Z_]+@", source)
    assert not leftover, leftover
    return source


def _choose(source: str, name: str, on: bool) -> str:
    """Keeps the lines between `//<name>{` and `//}<name>` (or `//!<name>{` ... `//}!<name>`
    when off), drops the other branch, and the markers."""
    keep, drop = (name, "!" + name) if on else ("!" + name, name)
    source = re.sub(rf"^[ ]*//{re.escape(drop)}\{{\n.*?^[ ]*//\}}{re.escape(drop)}\n", "", source, flags=re.S | re.M)
    source = re.sub(rf"^[ ]*//(?:{re.escape(keep)}\{{|\}}{re.escape(keep)})\n", "", source, flags=re.M)
    return source


_TEMPLATE = r"""// @LABEL@ (@PROBLEM@): CuTe, TMA loads and wgmma (warpgroup MMA), fp32 accumulation
#define NDEBUG  // CUTLASS's pipeline: no debug traps
#include <cuda_runtime.h>
#include <@HEADER@>
#include <cstdint>
#include <cute/tensor.hpp>
#include <cute/arch/cluster_sm90.hpp>
#include <cutlass/numeric_types.h>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/pipeline/sm90_pipeline.hpp>

using namespace cute;

typedef @ELEMENT@ Elem;          // the entry point's element type
typedef @CUTE_ELEMENT@ T;     // the same bits, as CuTe names them
constexpr int BM = @BM@, BN = @BN@, BK = @BK@, STAGES = @STAGES@;
constexpr int CONSUMERS = @CONSUMERS@;          // wgmma warpgroups
constexpr bool PRODUCER = @PRODUCER@;           // a TMA warpgroup of its own
constexpr int CLUSTER = @CLUSTER@, GROUP = @GROUP@;
constexpr int THREADS = 128 * (CONSUMERS + (PRODUCER ? 1 : 0));
constexpr int SMEM = @SMEM@;                   // dynamic shared memory, bytes (1024 of them to align the base)

// Shared tiles: A (BM, BK) K-major, B (BN, BK) N-major, 128-byte swizzled, STAGES slots of each.
using SmemLayoutA = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{}, make_shape(Int<BM>{}, Int<BK>{}, Int<STAGES>{})));
// B's atoms (64 N x 8 K) go along K first, as CUTLASS orders an MN-major operand: each 64-column
// strip of a slot is one contiguous 64 x BK box for the TMA.
using SmemLayoutB = decltype(tile_to_shape(GMMA::Layout_MN_SW128_Atom<T>{}, make_shape(Int<BN>{}, Int<BK>{}, Int<STAGES>{}),
                                           Step<_2, _1, _3>{}));
// CONSUMERS warpgroups along M, each issuing 64 x BN x 16 wgmma from shared memory.
using TiledMma = decltype(make_tiled_mma(@MMA@{}, Layout<Shape<Int<CONSUMERS>, _1, _1>>{}));
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
__global__ void __launch_bounds__(THREADS, 1)@CLUSTER_DIMS@
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
//WS{
  const int warp_group = threadIdx.x / 128;  // 0: the producer
  params.role = warp_group == 0 ? Pipeline::ThreadCategory::Producer : Pipeline::ThreadCategory::Consumer;
  params.is_leader = threadIdx.x == 0;
//}WS
//!WS{
  params.role = threadIdx.x == 0 ? Pipeline::ThreadCategory::ProducerConsumer : Pipeline::ThreadCategory::Consumer;
  params.is_leader = threadIdx.x == 0;
//}!WS
  Pipeline pipeline(smem.pipeline, params, ClusterShape{});
  // Every block's barriers are initialized before any block's TMA or arrival can reach them.
//CLUSTER{
  cute::cluster_arrive_relaxed();
  cute::cluster_wait();
//}CLUSTER
//!CLUSTER{
  __syncthreads();
//}!CLUSTER

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
    copy(tma_b.with(*barrier@B_MASK@), tBgB(_, _, _, t), tBsB(_, _, _, write.index()));
    ++write;
  };

  PipelineState write = cutlass::make_producer_start_state<Pipeline>();
//WS{
  if (warp_group == 0) {  // the producer: one thread issues every TMA load
//RECONFIG{
    cutlass::arch::warpgroup_reg_dealloc<40>();
//}RECONFIG
    if (threadIdx.x == 0) {  // the pipeline's leader: it expects each slot's bytes
      for (int t = 0; t < k_tiles; ++t) load(write, t);
//CLUSTER{
      pipeline.producer_tail(write);  // no block leaves while its peers may still signal it
//}CLUSTER
    }
    return;
  }
//RECONFIG{
  cutlass::arch::warpgroup_reg_alloc<232>();
//}RECONFIG
  const int consumer_thread = threadIdx.x - 128;
//}WS
//!WS{
  // Thread 0 fills the ring ahead and refills each slot once every consumer has released it.
  if (threadIdx.x == 0)
    for (int t = 0; t < min(STAGES, k_tiles); ++t) load(write, t);
  const int consumer_thread = threadIdx.x;
//}!WS

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
//!WS{
    if (threadIdx.x == 0 && t - 1 + STAGES < k_tiles) load(write, t - 1 + STAGES);
//}!WS
  }
  warpgroup_wait<0>();
  warpgroup_fence_operand(acc);
  pipeline.consumer_release(release);
//!WS{
//CLUSTER{
  if (threadIdx.x == 0) pipeline.producer_tail(write);  // no block leaves while its peers may still signal it
//}CLUSTER
//}!WS

  // Epilogue: T from fp32, two neighbouring columns at a time where both are inside C.
  CUTE_UNROLL
  for (int i = 0; i < size(acc); i += 2) {
    const int r = get<0>(tCcC(i)), c = get<1>(tCcC(i));
    if (r >= m) continue;
    const bool pair = c % 2 == 0 && get<0>(tCcC(i + 1)) == r && get<1>(tCcC(i + 1)) == c + 1;
    if (pair && c + 1 < n) {
      *reinterpret_cast<@PAIR@ *>(&tCgC(i)) = @PAIR_FROM@(acc(i), acc(i + 1));
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
    As[ty][tx] = r < m && p0 + tx < k ? @TO_FLOAT@(A[static_cast<size_t>(r) * k + p0 + tx]) : 0.0f;
    Bs[ty][tx] = p0 + ty < k && c < n ? @TO_FLOAT@(B[static_cast<size_t>(p0 + ty) * n + c]) : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < FT; ++p) acc += As[ty][p] * Bs[p][tx];
    __syncthreads();
  }
  if (r < m && c < n) C[static_cast<size_t>(r) * n + c] = @FROM_FLOAT@(acc);
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
                            make_tma_copy(@TMA_B@{}, mB, SmemLayoutB{}(_, _, 0), Int<CLUSTER>{}));
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
"""
