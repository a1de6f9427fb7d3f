"""The parametric family of CUDA matmul candidates: a `CudaGenome` and `render_cuda(genome, precision)`.

A candidate computes C[m x n] = A[m x k] * B[k x n] (row-major, device pointers) through the
contract's host entry point `extern "C" void matmul(int m, int n, int k, const T *A, const T *B,
T *C)`, T = double / float / __half / __nv_bfloat16 for f64 (cuda-dgemm-*), f32 (cuda-sgemm-*), f16
(cuda-hgemm-*) and bf16 problems (docs/problems.md). One kernel,
one launch: each thread block owns a BM x BN tile of C and walks the reduction in steps of BK.

- Plain (SIMT) genomes: each thread owns TM x TN elements of the block's tile (register
  blocking; strided so that neighbouring threads touch neighbouring columns). With `smem` the
  BM x BK slice of A and the BK x BN slice of B are staged in shared memory first (rows padded
  by 16 bytes with `pad`, copied in 16-byte vectors where the source is aligned with `vec`).
- Tensor genomes (`tensor`, always staged in shared memory): WMMA fragments, each warp owning
  TM x TN fragments of C: fp16 inputs with fp32 accumulation (hgemm, 16x16x16), TF32 (sgemm,
  16x16x8, fp32 accumulation), FP64 DMMA (dgemm, 8x8x4). Genomes with `mma` (the instruction's
  k) use inline `mma.sync.m16n8k<mma>` instead, fragments in the PTX ISA's register layout:
  dgemm with Hopper's FP64 shapes k = 4, 8, 16 (sm_90 and later; WMMA has only 8x8x4), read from
  shared memory element by element; hgemm with k = 16 (fp32 accumulation, sm_80 and later),
  loaded with `ldmatrix` (A as stored, B transposed).
- `stages` 2 or 3: the shared-memory slices are filled with `cp.async` (`__pipeline_memcpy_async`)
  into a ring of that many buffers, the copy of slice t + stages - 1 overlapping the math on t.
- Shared memory above the static 48 KiB (up to MAX_SMEM) is dynamic, opted in with
  cudaFuncSetAttribute before the launch.

Every edge is handled element by element (zero fill beyond m, n, k; bounds-checked stores), so
a candidate is correct for any m, n, k >= 1; vector and asynchronous copies are used only for
chunks that are in range and aligned (checked at run time), the rest is copied one element at a
time. In CI the candidates go through the rank's pre-run checks (tests/generator/,
tests/cuda_checks/generated_cuda_test.cpp); their runs on an H200 are in docs/reports/generator.md.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import itertools
import pathlib
import random
import re
import sys

from .problem_kind import ROW_MAJOR, Kind

PRECISIONS = ("f64", "f32", "f16", "bf16")
# The default catalog's problem families; bf16 problems live in other catalogs (llm-layers).
PROBLEM_PREFIX = {"f64": "cuda-dgemm", "f32": "cuda-sgemm", "f16": "cuda-hgemm"}
ELEMENT = {"f64": "double", "f32": "float", "f16": "__half", "bf16": "__nv_bfloat16"}
ACCUMULATOR = {"f64": "double", "f32": "float", "f16": "float", "bf16": "float"}
SIZE = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2}
ACCUMULATOR_PRECISION = {"f64": "f64", "f32": "f32", "f16": "f32", "bf16": "f32"}
SIXTEEN_BIT = ("f16", "bf16")  # 16-bit operands and output, fp32 accumulation
# Conversions of a 16-bit element: to float, from float, and its header.
TO_FLOAT = {"f16": "__half2float", "bf16": "__bfloat162float"}
FROM_FLOAT = {"f16": "__float2half", "bf16": "__float2bfloat16"}
HEADER = {"f16": "cuda_fp16.h", "bf16": "cuda_bf16.h"}
# WMMA fragment shape (m, n, k) per precision: DMMA 8x8x4, TF32 16x16x8, fp16 16x16x16.
FRAGMENT = {"f64": (8, 8, 4), "f32": (16, 16, 8), "f16": (16, 16, 16), "bf16": (16, 16, 16)}
# The k of inline mma.sync.m16n8k<k> per precision (0: WMMA). f64: PTX ISA 7.8's shapes for
# sm_90 (DMMA.16x8x4, 16x8x8, 16x8x16 in SASS: 4x to 16x the work of WMMA's 8x8x4 per
# instruction); f16: m16n8k16 with fp32 accumulation (HMMA.16816.F32).
MMA_SHAPES = {"f64": (4, 8, 16), "f16": (16,), "bf16": (16,)}
MMA_KS = tuple(sorted({k for ks in MMA_SHAPES.values() for k in ks}))  # the gene's values
# Registers the fragments of an mma genome may take (32-bit): accumulators, then one k step's
# A and B; beyond this ptxas spills them.
MAX_MMA_FRAGMENT_REGISTERS = 200

BLOCK_SIZES = (16, 32, 64, 128, 256)  # BM, BN
BK_SIZES = (8, 16, 32)
THREAD_TILES = (1, 2, 4, 8)          # TM, TN: elements per thread, or fragments per warp
PIPELINE_STAGES = (1, 2, 3)          # 1: synchronous copies
TECHNIQUES = ("smem", "tensor", "async")
CUDA_STAGES = ("cuda-naive", "cuda-smem", "cuda-tensor", "cuda-async")
MAX_THREADS = 512
MAX_STATIC_SMEM = 48 * 1024          # the static __shared__ limit of one block
# Beyond it a kernel takes its shared memory dynamically, opted in with cudaFuncSetAttribute: up
# to 96 KiB, which every GPU from sm_80 on grants a block (H100 and H200: 227 KiB). The larger
# tiles and deeper cp.async rings that need it are where tensor-core kernels gain most.
MAX_SMEM = 96 * 1024
MAX_FRAGMENTS = 16                   # accumulator fragments per warp (more spills registers)

# The CUDA stages of stages/default_ladder.json: (allows, requires).
DEFAULT_STAGES = {
    "cuda-naive": ((), ()),
    "cuda-smem": (("smem",), ("smem",)),
    "cuda-tensor": (("smem", "tensor"), ("tensor",)),
    "cuda-async": (("smem", "tensor", "async"), ("async",)),
    # wgmma and tma refine tensor and async; CuTe's headers ("libraries": ["cute"]). The Hopper
    # family's (hopper_kernels.py): no CudaGenome uses either.
    "cuda-hopper": (("smem", "tensor", "async", "wgmma", "tma"), ("wgmma", "tma")),
    "cuda-open": (("smem", "tensor", "async"), ()),
}
HOPPER_STAGES = ("cuda-hopper",)  # the default ladder's stage after CUDA_STAGES




def load_cuda_ladder(path: str | pathlib.Path | None = None) -> dict:
    """name -> (allows, requires) of the CUDA stages of a ladder file (a built-in copy if unreadable)."""
    from . import kernels  # the C family's reader; the same file holds both ladders
    stages, _ = kernels.load_ladder(path)
    cuda = {name: value for name, value in stages.items() if name.startswith("cuda-")}
    return cuda or dict(DEFAULT_STAGES)


@dataclasses.dataclass(frozen=True)
class CudaGenome:
    bm: int = 64                # rows of C per thread block
    bn: int = 64                # columns of C per thread block
    bk: int = 16                # reduction step per shared-memory slice (smem genomes only)
    tm: int = 4                 # per thread (plain) or per warp in fragments (tensor): rows ...
    tn: int = 4                 # ... and columns of C held in registers
    smem: bool = False          # stage A and B slices in shared memory
    pad: bool = False           # pad every shared row by 16 bytes (bank conflicts)
    vec: bool = False           # 16-byte global loads where a chunk is in range and aligned
    tensor: bool = False        # WMMA fragments (needs smem)
    stages: int = 1             # 2, 3: cp.async ring of that many slices (needs smem)
    mma: int = 0                # dgemm tensor genomes: 4, 8, 16: inline mma.sync m16n8k<mma>, else WMMA

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @staticmethod
    def from_dict(data: dict) -> "CudaGenome":
        fields = {f.name for f in dataclasses.fields(CudaGenome)}
        return CudaGenome(**{key: value for key, value in data.items() if key in fields})

    def label(self) -> str:
        flags = "".join(flag for flag, on in (("S", self.smem), ("P", self.pad), ("V", self.vec),
                                                ("T", self.tensor)) if on)
        return (f"b{self.bm}x{self.bn}x{self.bk}-t{self.tm}x{self.tn}-s{self.stages}"
                f"-{flags or 'plain'}" + (f"-k{self.mma}" if self.mma else ""))

    @staticmethod
    def from_label(label: str) -> "CudaGenome":
        """The genome a label() names (labels encode every gene). ValueError if it names none."""
        match = _LABEL.fullmatch(label) if isinstance(label, str) else None
        if not match:
            raise ValueError(f"{label!r} is not a CUDA genome label (bBMxBNxBK-tTMxTN-sSTAGES-FLAGS[-kMMA], "
                             "e.g. b64x256x32-t4x4-s3-SPVT-k16; flags S, P, V, T in that order, or plain)")
        flags = match["flags"]
        genome = CudaGenome(bm=int(match["bm"]), bn=int(match["bn"]), bk=int(match["bk"]), tm=int(match["tm"]),
                            tn=int(match["tn"]), smem="S" in flags, pad="P" in flags, vec="V" in flags,
                            tensor="T" in flags, stages=int(match["stages"]), mma=int(match["mma"] or 0))
        if genome.label() != label:  # e.g. -k0 or leading zeros: not a label label() writes
            raise ValueError(f"{label!r} is not a CUDA genome label as the generator writes it ({genome.label()!r})")
        return genome


# What CudaGenome.label() writes; the flags are S (smem), P (pad), V (vec), T (tensor), or plain.
_LABEL = re.compile(r"b(?P<bm>\d+)x(?P<bn>\d+)x(?P<bk>\d+)-t(?P<tm>\d+)x(?P<tn>\d+)-s(?P<stages>\d+)"
                    r"-(?P<flags>plain|(?=[SPVT])S?P?V?T?)(?:-k(?P<mma>\d+))?")


def techniques(genome: CudaGenome) -> tuple[str, ...]:
    """What the rank's SASS detection finds in the rendered candidate, in its order (smem, tensor, async).

    smem: LDS/STS of the staged slices; tensor: HMMA/DMMA of the fragments; async: LDGSTS of
    the cp.async copies (which also count as smem)."""
    used = []
    if genome.smem:
        used.append("smem")
    if genome.tensor:
        used.append("tensor")
    if genome.stages > 1:
        used.append("async")
    return tuple(used)


def fragment(genome: CudaGenome, precision: str) -> tuple[int, int, int]:
    """(m, n, k) of the tile one tensor-core instruction computes (a WMMA fragment, or mma.sync's)."""
    return (16, 8, genome.mma) if genome.mma else FRAGMENT[precision]


def chunk(genome: CudaGenome, precision: str) -> int:
    """Elements per copy of a global chunk into shared memory."""
    if genome.vec:
        return 16 // SIZE[precision]
    if genome.stages > 1 and precision in SIXTEEN_BIT:
        return 2  # cp.async copies 4, 8 or 16 bytes: two 16-bit elements at least
    return 1


def pad_elements(genome: CudaGenome, precision: str) -> int:
    # 16 bytes keeps every row start 16-byte aligned: vector and cp.async destinations, WMMA's
    # leading dimension (a multiple of 16 bytes) and ldmatrix's rows stay valid with the padding,
    # and ldmatrix's 8 rows of 16 bytes fall in distinct banks. f64 mma genomes pad by 32 bytes:
    # their fragment loads read 4 rows x 4 columns of doubles per half-warp, free of bank
    # conflicts when the row stride is 4 doubles past a multiple of 16.
    if not genome.pad:
        return 0
    return (32 if genome.mma and precision == "f64" else 16) // SIZE[precision]


def threads(genome: CudaGenome, precision: str) -> int:
    if genome.tensor:
        fm, fn, _ = fragment(genome, precision)
        return 32 * (genome.bm // (genome.tm * fm)) * (genome.bn // (genome.tn * fn))
    return (genome.bm // genome.tm) * (genome.bn // genome.tn)


def shared_bytes(genome: CudaGenome, precision: str) -> int:
    if not genome.smem:
        return 0
    pad = pad_elements(genome, precision)
    slices = genome.stages * (genome.bm * (genome.bk + pad) + genome.bk * (genome.bn + pad)) * SIZE[precision]
    scratch = 0
    if genome.tensor and not genome.mma:  # one WMMA accumulator per warp, for the bounds-checked store
        fm, fn, _ = FRAGMENT[precision]
        scratch = threads(genome, precision) // 32 * fm * fn * SIZE["f64" if precision == "f64" else "f32"]
    return slices + scratch


def dynamic_shared(genome: CudaGenome, precision: str) -> bool:
    """Whether the kernel's shared memory is past the static limit (then dynamic, opted in)."""
    return shared_bytes(genome, precision) > MAX_STATIC_SMEM


def _shared_arrays(g: CudaGenome, precision: str, align: int) -> list[str]:
    """The kernel's shared slices (and, for tensor genomes, the per-warp fragment scratch Cs):
    static arrays, or the same arrays carved out of the dynamic allocation."""
    if not dynamic_shared(g, precision):
        lines = [f"  __shared__ __align__({align}) T As[STAGES][BM * LDA];",
                 f"  __shared__ __align__({align}) T Bs[STAGES][BK * LDB];"]
        if g.tensor and not g.mma:
            lines.append(f"  __shared__ __align__({align}) Acc Cs[THREADS / 32][FM * FN];"
                         "  // one fragment per warp, for the edges")
        return lines
    # Every part starts a multiple of 32 bytes in: each slice is a whole number of 16-byte rows,
    # and BM, BK >= 8.
    lines = ["  extern __shared__ __align__(128) unsigned char shared[];  // SMEM bytes",
             "  T (*As)[BM * LDA] = reinterpret_cast<T (*)[BM * LDA]>(shared);",
             "  T (*Bs)[BK * LDB] = reinterpret_cast<T (*)[BK * LDB]>(shared + sizeof(T) * STAGES * BM * LDA);"]
    if g.tensor and not g.mma:
        lines.append("  Acc (*Cs)[FM * FN] = reinterpret_cast<Acc (*)[FM * FN]>("
                     "shared + sizeof(T) * STAGES * (BM * LDA + BK * LDB));  // per warp, for the edges")
    return lines


def problems(genome: CudaGenome, precision: str, kind: Kind = ROW_MAJOR) -> list[str]:
    """Why a genome cannot be rendered for `precision` and `kind` as it is (empty when it can)."""
    found = []
    g = genome
    if precision not in PRECISIONS:
        return [f"precision {precision!r}"]
    if g.stages > 1 and SIZE[precision] < 4 and kind.transpose_a and kind.transpose_b:
        # A transposed tile is copied element by element; cp.async copies 4 bytes at least.
        return ["async copies of two transposed 16-bit operands (cp.async moves 4, 8 or 16 bytes)"]
    for name, allowed in (("bm", BLOCK_SIZES), ("bn", BLOCK_SIZES), ("bk", BK_SIZES), ("tm", THREAD_TILES),
                          ("tn", THREAD_TILES), ("stages", PIPELINE_STAGES), ("mma", (0,) + MMA_KS)):
        if getattr(g, name) not in allowed:
            found.append(f"{name}={getattr(g, name)}")
    if found:
        return found
    if not g.smem and (g.pad or g.vec or g.tensor or g.stages > 1 or g.bk != CudaGenome.bk):
        found.append("pad, vec, tensor, stages and bk need smem")
    if g.mma and (not g.tensor or g.mma not in MMA_SHAPES.get(precision, ())):
        found.append(f"mma={g.mma} needs tensor and a precision with that shape "
                     f"({'; '.join(f'{p}: k {ks}' for p, ks in MMA_SHAPES.items())})")
        return found
    if g.tensor:
        fm, fn, fk = fragment(g, precision)
        if g.bm % (g.tm * fm) or g.bn % (g.tn * fn):
            found.append(f"the block tile must hold whole warps of {g.tm}x{g.tn} {fm}x{fn} fragments")
        if g.bk % fk:
            found.append(f"bk must be a multiple of the fragment's k ({fk})")
        if g.tm * g.tn > MAX_FRAGMENTS:
            found.append(f"at most {MAX_FRAGMENTS} accumulator fragments per warp")
        if g.mma and mma_fragment_registers(g, precision) > MAX_MMA_FRAGMENT_REGISTERS:
            found.append(f"{mma_fragment_registers(g, precision)} registers of fragments "
                         f"(at most {MAX_MMA_FRAGMENT_REGISTERS})")
    elif g.bm % g.tm or g.bn % g.tn:
        found.append("the block tile must split into whole thread tiles")
    if not found and not 32 <= threads(g, precision) <= MAX_THREADS:
        found.append(f"{threads(g, precision)} threads per block (32..{MAX_THREADS})")
    if g.smem:
        v = chunk(g, precision)
        if g.bk % v or g.bn % v:
            found.append(f"bk and bn must be multiples of the copy chunk ({v} elements)")
        if shared_bytes(g, precision) > MAX_SMEM:
            found.append(f"{shared_bytes(g, precision)} bytes of shared memory (at most {MAX_SMEM})")
    return found


def mma_fragment_registers(genome: CudaGenome, precision: str = "f64") -> int:
    """32-bit registers per thread for an mma genome's fragments: TM x TN accumulators of 4
    elements (double or float), one k step's A (k/2 elements per row tile) and B (k/4 per
    column tile); a double takes two registers, two halves one."""
    g = genome
    accumulators = 4 * g.tm * g.tn * SIZE[ACCUMULATOR_PRECISION[precision]] // 4
    operands = (g.mma // 2 * g.tm + g.mma // 4 * g.tn) * SIZE[precision] // 4
    return accumulators + operands


def fits_stage(genome: CudaGenome, stage: str, stages: dict | None = None) -> bool:
    allows, requires = (stages or DEFAULT_STAGES)[stage]
    used = set(techniques(genome))
    return used <= set(allows) and set(requires) <= used


def is_valid(genome: CudaGenome, precision: str, stage: str | None = None, stages: dict | None = None,
             kind: Kind = ROW_MAJOR) -> bool:
    if problems(genome, precision, kind):
        return False
    return stage is None or fits_stage(genome, stage, stages)


def all_genomes(precision: str, stage: str, stages: dict | None = None) -> list[CudaGenome]:
    """Every valid genome of the stage (a few thousand at most), in gene order."""
    allows, requires = (stages or DEFAULT_STAGES)[stage]
    return list(_all_genomes(precision, tuple(allows), tuple(requires)))


@functools.lru_cache(maxsize=None)
def _all_genomes(precision: str, allows: tuple, requires: tuple) -> tuple[CudaGenome, ...]:
    # Cached: the loop draws random genomes and repairs against this list many times a batch.
    stage = {"stage": (allows, requires)}
    found = []
    mmas = (0,) + MMA_SHAPES.get(precision, ())
    for bm, bn, bk, tm, tn, smem, pad, vec, tensor, nstages, mma in itertools.product(
            BLOCK_SIZES, BLOCK_SIZES, BK_SIZES, THREAD_TILES, THREAD_TILES, (False, True), (False, True),
            (False, True), (False, True), PIPELINE_STAGES, mmas):
        if mma and not tensor:
            continue
        genome = CudaGenome(bm, bn, bk, tm, tn, smem, pad, vec, tensor, nstages, mma)
        if is_valid(genome, precision, "stage", stage):
            found.append(genome)
    return tuple(found)


def random_genome(rng: random.Random, precision: str, stage: str, stages: dict | None = None) -> CudaGenome:
    return rng.choice(all_genomes(precision, stage, stages))


def descriptor(genome: CudaGenome) -> str:
    """Niche key: techniques, block tile (bm x bn x bk), thread or warp tile (tm x tn), pipeline
    depth, e.g. `smem+tensor+async|64x128x32|2x4|s3`. `pad`, `vec` and `mma` are left out: they
    tune a kernel of the same shape, so such variants compete for one niche. Plain genomes have no
    slice, so their bk (always the default) carries no information but keeps one format."""
    used = "+".join(techniques(genome)) or "plain"
    return f"{used}|{genome.bm}x{genome.bn}x{genome.bk}|{genome.tm}x{genome.tn}|s{genome.stages}"


def repair(genome: CudaGenome, precision: str, stage: str, rng: random.Random,
           stages: dict | None = None) -> CudaGenome:
    """The nearest genome valid for `precision` in `stage`: first the technique switches the
    stage decides (off what it does not allow, on what it requires; tensor and cp.async stage
    through shared memory, so they bring smem), then, if the shape still cannot render (threads
    per block, whole fragments, shared-memory size, copy chunks), the valid genome of the stage
    that differs in the fewest genes (ties drawn with `rng`)."""
    allows, requires = (stages or DEFAULT_STAGES)[stage]
    g = dataclasses.asdict(genome)
    for name, on in (("tensor", g["tensor"]), ("async", g["stages"] > 1), ("smem", g["smem"])):
        if name in requires and not on:
            on = True
        if name not in allows:
            on = False
        if name == "tensor":
            g["tensor"] = on
        elif name == "async":
            g["stages"] = (g["stages"] if g["stages"] > 1 else rng.choice(PIPELINE_STAGES[1:])) if on else 1
        else:
            g["smem"] = on or g["tensor"] or g["stages"] > 1
    if not g["smem"]:  # what only a staged kernel has
        g.update(tensor=False, stages=1, pad=False, vec=False, bk=CudaGenome.bk)
    if not g["tensor"] or precision not in MMA_SHAPES:
        g["mma"] = 0
    elif g["mma"] and g["mma"] not in MMA_SHAPES[precision]:
        g["mma"] = MMA_SHAPES[precision][-1]
    repaired = CudaGenome(**g)
    if is_valid(repaired, precision, stage, stages):
        return repaired
    # One gene away is the usual case and cheap to list; else a scan of the stage's genomes.
    near = [dataclasses.replace(repaired, **{gene: value}) for gene, values in GENE_VALUES.items()
            for value in values if value != getattr(repaired, gene)]
    near = [n for n in near if is_valid(n, precision, stage, stages)]
    if near:
        return rng.choice(near)
    valid = all_genomes(precision, stage, stages)
    genes = dataclasses.astuple(repaired)
    distance = [sum(a != b for a, b in zip(genes, dataclasses.astuple(v))) for v in valid]
    nearest = min(distance)
    return rng.choice([v for v, d in zip(valid, distance) if d == nearest])


# Every gene and the values a mutation draws from (booleans flip).
GENE_VALUES = {"bm": BLOCK_SIZES, "bn": BLOCK_SIZES, "bk": BK_SIZES, "tm": THREAD_TILES, "tn": THREAD_TILES,
               "smem": (False, True), "pad": (False, True), "vec": (False, True), "tensor": (False, True),
               "stages": PIPELINE_STAGES, "mma": (0,) + MMA_KS}


def mutate(genome: CudaGenome, precision: str, stage: str, rng: random.Random,
           stages: dict | None = None) -> CudaGenome:
    """Changes one gene to another of its values, then repairs the genome for `stage`. A change
    the stage does not leave open (tensor in cuda-smem) is undone by the repair: then another
    gene is tried, so that the child differs from its parent where the stage allows any other."""
    for _ in range(20):
        gene = rng.choice(tuple(GENE_VALUES))
        value = getattr(genome, gene)
        new = rng.choice([v for v in GENE_VALUES[gene] if v != value])
        child = repair(dataclasses.replace(genome, **{gene: new}), precision, stage, rng, stages)
        if child != genome:
            return child
    return child


def sample_genomes(seed: int, randoms: int = 1, stages: dict | None = None) -> list[tuple[str, str, CudaGenome]]:
    """(stage, precision, genome) for CI: per stage and precision the smallest and the largest
    valid genome (genes compared in field order: block tile first) and `randoms` random ones."""
    rng = random.Random(seed)
    picked = []
    for stage in CUDA_STAGES:
        for precision in PRECISIONS:
            valid = all_genomes(precision, stage, stages)
            chosen = [valid[0], valid[-1]]
            # Both values of every switch the stage leaves open (e.g. tensor in cuda-async).
            for name, values in (("pad", (False, True)), ("vec", (False, True)), ("tensor", (False, True)),
                                 ("mma", (0,) + MMA_KS)):
                for value in values:
                    if not any(getattr(g, name) == value for g in chosen):
                        with_value = [g for g in valid if getattr(g, name) == value]
                        if with_value:
                            chosen.append(with_value[-1])
            chosen += [rng.choice(valid) for _ in range(randoms)]
            for genome in dict.fromkeys(chosen):  # in order, without repeats
                picked.append((stage, precision, genome))
    return picked


# --- rendering -------------------------------------------------------------------------------

def render_cuda(genome: CudaGenome, precision: str = "f64", kind: Kind = ROW_MAJOR) -> str:
    """The candidate's CUDA source for a problem of `precision` and `kind`. Raises ValueError
    for a genome that `problems()` refuses."""
    found = problems(genome, precision, kind)
    if found:
        raise ValueError(f"{genome.label()} ({precision}): {'; '.join(found)}")
    g = genome
    t, acc = ELEMENT[precision], ACCUMULATOR[precision]
    includes = ["cuda_runtime.h"]
    if precision in SIXTEEN_BIT:
        includes.append(HEADER[precision])
    wmma = g.tensor and not g.mma
    if wmma:
        includes.append("mma.h")
    if g.stages > 1:
        includes.append("cuda_pipeline.h")
    out = [f"// {g.label()} ({PROBLEM_PREFIX.get(precision, precision + ' problems')})"]
    out += [f"#include <{name}>" for name in includes]
    if wmma:
        out.append("using namespace nvcuda;")
    out.append(f"typedef {t} T;      // element type of A, B, C")
    out.append(f"typedef {acc} Acc;  // accumulation type")
    half = precision in SIXTEEN_BIT
    if not g.tensor:  # tensor genomes read A and B through fragments only
        out.append("static __device__ __forceinline__ Acc to_acc(T x) { return %s; }"
                   % (f"{TO_FLOAT[precision]}(x)" if half else "x"))
    out.append("static __device__ __forceinline__ T from_acc(Acc x) { return %s; }"
               % (f"{FROM_FLOAT[precision]}(x)" if half else "x"))
    zero = f"{FROM_FLOAT[precision]}(0.0f)" if half else "T(0)"
    out.append(f"constexpr int BM = {g.bm}, BN = {g.bn}, TM = {g.tm}, TN = {g.tn};")
    if g.tensor:
        fm, fn, fk = fragment(g, precision)
        out.append(f"constexpr int FM = {fm}, FN = {fn}, FK = {fk};  // "
                   + ("one mma.sync tile" if g.mma else "one WMMA fragment"))
        out.append("constexpr int WARPS_M = BM / (TM * FM), WARPS_N = BN / (TN * FN);")
        out.append("constexpr int THREADS = 32 * WARPS_M * WARPS_N;")
    else:
        out.append("constexpr int TROWS = BM / TM, TCOLS = BN / TN;  // threads down and across the tile")
        out.append("constexpr int THREADS = TROWS * TCOLS;")
    if g.smem:
        pad = pad_elements(g, precision)
        out.append(f"constexpr int BK = {g.bk}, STAGES = {g.stages}, V = {chunk(g, precision)};"
                   "  // V: elements per copy chunk")
        out.append(f"constexpr int LDA = BK + {pad}, LDB = BN + {pad};  // shared row strides"
                   + (f" ({pad * SIZE[precision]} bytes of padding)" if pad else ""))
        if dynamic_shared(g, precision):
            out.append(f"constexpr int SMEM = {shared_bytes(g, precision)};  // bytes, dynamic: above the static 48 KiB")
        out += _load_tile(g, precision, zero)
        if kind.transpose_a or kind.transpose_b:
            out += _load_tile_transposed(g, precision, zero)
        if g.mma:
            out += _mma_kernel(g, precision, kind)
        elif g.tensor:
            out += _tensor_kernel(g, precision, kind)
        else:
            out += _smem_kernel(g, precision, kind)
    else:
        out += _naive_kernel(zero, kind)
    batch = "int batch, " if kind.batched else ""
    out += [
        f'extern "C" void matmul({batch}int m, int n, int k, const {t} *A, const {t} *B, {t} *C) {{',
        "  const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM%s);" % (", batch" if kind.batched else ""),
    ] + ([
        "  cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);",
        "  gemm<<<grid, THREADS, SMEM>>>(m, n, k, A, B, C);",
    ] if dynamic_shared(g, precision) else [
        "  gemm<<<grid, THREADS>>>(m, n, k, A, B, C);",
    ]) + [
        "}",
    ]
    return "\n".join(out) + "\n"


def _load_tile(g: CudaGenome, precision: str, zero: str) -> list[str]:
    """load_tile: a ROWS x COLS slice at `src` (row stride ld; rows_left, cols_left in range) into `dst`."""
    v = chunk(g, precision)
    chunk_bytes = v * SIZE[precision]
    if g.stages > 1:
        fast = "__pipeline_memcpy_async(d, s, V * sizeof(T));"
    elif v > 1:
        vector = {16: "uint4", 8: "uint2", 4: "unsigned int"}[chunk_bytes]
        fast = f"*reinterpret_cast<{vector} *>(d) = *reinterpret_cast<const {vector} *>(s);"
    else:
        fast = "*d = *s;"
    aligned = f" && reinterpret_cast<size_t>(s) % {chunk_bytes} == 0" if v > 1 else ""
    return [
        "// Copies a ROWS x COLS slice (row stride ld; rows_left x cols_left of it inside the matrix)",
        "// into shared memory, zero beyond the edges. Whole in-range, aligned chunks are copied at",
        "// once; the rest (edges, rows that start unaligned) one element at a time.",
        "template <int ROWS, int COLS, int LD>",
        "static __device__ __forceinline__ void load_tile(T *dst, const T *src, int ld, int rows_left, int cols_left) {",
        "  for (int idx = threadIdx.x; idx < ROWS * (COLS / V); idx += THREADS) {",
        "    const int r = idx / (COLS / V), c = idx % (COLS / V) * V;",
        "    T *d = dst + r * LD + c;",
        "    const T *s = src + static_cast<size_t>(r) * ld + c;",
        f"    if (r < rows_left && c + V <= cols_left{aligned}) {{",
        f"      {fast}",
        "    } else {",
        "      for (int e = 0; e < V; ++e)",
        f"        d[e] = r < rows_left && c + e < cols_left ? s[e] : {zero};",
        "    }",
        "  }",
        "}",
    ]


def _load_tile_transposed(g: CudaGenome, precision: str, zero: str) -> list[str]:
    """load_tile_t: the same ROWS x COLS slice of an operand given transposed (src holds it
    column by column, column stride ld), element by element: cp.async where it can (4 bytes and
    more), else plain stores, which the slice loop's barriers order as they order cp.async."""
    copy = ("__pipeline_memcpy_async(d, s, sizeof(T));" if g.stages > 1 and SIZE[precision] >= 4
            else "*d = *s;")
    return [
        "// The slice of an operand given transposed: element (r, c) at src[c * ld + r]. Neighbouring",
        "// threads take neighbouring r, so the reads coalesce.",
        "template <int ROWS, int COLS, int LD>",
        "static __device__ __forceinline__ void load_tile_t(T *dst, const T *src, int ld, int rows_left, int cols_left) {",
        "  for (int idx = threadIdx.x; idx < ROWS * COLS; idx += THREADS) {",
        "    const int r = idx % ROWS, c = idx / ROWS;",
        "    T *d = dst + r * LD + c;",
        "    const T *s = src + static_cast<size_t>(c) * ld + r;",
        "    if (r < rows_left && c < cols_left) {",
        f"      {copy}",
        "    } else {",
        f"      *d = {zero};",
        "    }",
        "  }",
        "}",
    ]


def _kernel_head(preamble: list[str], kind: Kind) -> list[str]:
    """The kernel's first lines after `preamble` (its comment): one product of a batch per blockIdx.z."""
    head = preamble + [
        "__global__ void __launch_bounds__(THREADS) gemm(int m, int n, int k, const T *A, const T *B, T *C) {"]
    if kind.batched:
        head += [
            "  A += static_cast<size_t>(blockIdx.z) * m * k;  // this block's product of the batch",
            "  B += static_cast<size_t>(blockIdx.z) * k * n;",
            "  C += static_cast<size_t>(blockIdx.z) * m * n;",
        ]
    return head


def _naive_kernel(zero: str, kind: Kind) -> list[str]:
    a_at = "A[static_cast<size_t>(p) * m + r]" if kind.transpose_a else "A[static_cast<size_t>(r) * k + p]"
    b_at = "B[static_cast<size_t>(c) * k + p]" if kind.transpose_b else "B[static_cast<size_t>(p) * n + c]"
    return _kernel_head(["// Each thread: TM x TN elements of C, strided by the thread grid (coalesced columns)."],
                        kind) + [
        "  const int ty = threadIdx.x / TCOLS, tx = threadIdx.x % TCOLS;",
        "  const int row0 = blockIdx.y * BM + ty, col0 = blockIdx.x * BN + tx;",
        "  Acc acc[TM][TN] = {};",
        "  for (int p = 0; p < k; ++p) {",
        "    Acc a[TM], b[TN];",
        "#pragma unroll",
        "    for (int i = 0; i < TM; ++i) {",
        "      const int r = row0 + i * TROWS;",
        f"      a[i] = r < m ? to_acc({a_at}) : Acc(0);",
        "    }",
        "#pragma unroll",
        "    for (int j = 0; j < TN; ++j) {",
        "      const int c = col0 + j * TCOLS;",
        f"      b[j] = c < n ? to_acc({b_at}) : Acc(0);",
        "    }",
        "#pragma unroll",
        "    for (int i = 0; i < TM; ++i)",
        "#pragma unroll",
        "      for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];",
        "  }",
    ] + _simt_store()


def _simt_store() -> list[str]:
    return [
        "#pragma unroll",
        "  for (int i = 0; i < TM; ++i)",
        "#pragma unroll",
        "    for (int j = 0; j < TN; ++j) {",
        "      const int r = row0 + i * TROWS, c = col0 + j * TCOLS;",
        "      if (r < m && c < n) C[static_cast<size_t>(r) * n + c] = from_acc(acc[i][j]);",
        "    }",
        "}",
    ]


def _slice_loop(compute: list[str], pipelined: bool, kind: Kind) -> list[str]:
    """The walk over k in BK slices: load slice t into buffer t % STAGES, compute on it."""
    load_a = ("    load_tile_t<BM, BK, LDA>(As[buf], A + static_cast<size_t>(p0) * m + r0, m, m - r0, k - p0);"
              if kind.transpose_a else
              "    load_tile<BM, BK, LDA>(As[buf], A + static_cast<size_t>(r0) * k + p0, k, m - r0, k - p0);")
    load_b = ("    load_tile_t<BK, BN, LDB>(Bs[buf], B + static_cast<size_t>(c0) * k + p0, k, k - p0, n - c0);"
              if kind.transpose_b else
              "    load_tile<BK, BN, LDB>(Bs[buf], B + static_cast<size_t>(p0) * n + c0, n, k - p0, n - c0);")
    load = [
        "  // Slice t of A (BM x BK) and of B (BK x BN) into buffer `buf`.",
        "  const int r0 = blockIdx.y * BM, c0 = blockIdx.x * BN;",
        "  auto load_slice = [&](int buf, int t) {",
        "    const int p0 = t * BK;",
        load_a,
        load_b,
        "  };",
        "  const int slices = (k + BK - 1) / BK;",
    ]
    if not pipelined:
        return load + [
            "  for (int t = 0; t < slices; ++t) {",
            "    load_slice(0, t);",
            "    __syncthreads();",
            "    const T *as = As[0], *bs = Bs[0];",
        ] + compute + [
            "    __syncthreads();  // before the next slice overwrites the buffers",
            "  }",
        ]
    return load + [
        "  // A ring of STAGES buffers: slices t + 1 .. t + STAGES - 1 are in flight while t is used.",
        "  // Every iteration commits one group (empty past the end) so that the count stays exact.",
        "  for (int s = 0; s < STAGES - 1; ++s) {",
        "    if (s < slices) load_slice(s, s);",
        "    __pipeline_commit();",
        "  }",
        "  for (int t = 0; t < slices; ++t) {",
        "    const int next = t + STAGES - 1;",
        "    if (next < slices) load_slice(next % STAGES, next);  // the buffer used in iteration t - 1",
        "    __pipeline_commit();",
        "    __pipeline_wait_prior(STAGES - 1);  // this thread's copies of slice t have landed",
        "    __syncthreads();                    // ... and every thread's",
        "    const T *as = As[t % STAGES], *bs = Bs[t % STAGES];",
    ] + compute + [
        "    __syncthreads();  // before buffer t % STAGES is refilled",
        "  }",
    ]


def _smem_kernel(g: CudaGenome, precision: str, kind: Kind) -> list[str]:
    compute = [
        "#pragma unroll",
        "    for (int p = 0; p < BK; ++p) {",
        "      Acc a[TM], b[TN];",
        "#pragma unroll",
        "      for (int i = 0; i < TM; ++i) a[i] = to_acc(as[(ty + i * TROWS) * LDA + p]);",
        "#pragma unroll",
        "      for (int j = 0; j < TN; ++j) b[j] = to_acc(bs[p * LDB + tx + j * TCOLS]);",
        "#pragma unroll",
        "      for (int i = 0; i < TM; ++i)",
        "#pragma unroll",
        "        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];",
        "    }",
    ]
    return _kernel_head(
        ["// Each thread: TM x TN elements of C, strided by the thread grid, read from shared slices."], kind
    ) + _shared_arrays(g, precision, 16) + [
        "  const int ty = threadIdx.x / TCOLS, tx = threadIdx.x % TCOLS;",
        "  const int row0 = blockIdx.y * BM + ty, col0 = blockIdx.x * BN + tx;",
        "  Acc acc[TM][TN] = {};",
    ] + _slice_loop(compute, g.stages > 1, kind) + _simt_store()


def _tensor_kernel(g: CudaGenome, precision: str, kind: Kind) -> list[str]:
    if precision == "f32":
        a_type = "wmma::precision::tf32"
        # TF32 fragments are loaded from float and rounded to TF32 before the MMA.
        convert = [
            "#pragma unroll",
            "      for (int i = 0; i < TM; ++i)",
            "        for (int e = 0; e < a[i].num_elements; ++e) a[i].x[e] = wmma::__float_to_tf32(a[i].x[e]);",
            "#pragma unroll",
            "      for (int j = 0; j < TN; ++j)",
            "        for (int e = 0; e < b[j].num_elements; ++e) b[j].x[e] = wmma::__float_to_tf32(b[j].x[e]);",
        ]
    else:
        a_type, convert = "T", []
    compute = [
        "#pragma unroll",
        "    for (int kk = 0; kk < BK; kk += FK) {",
        f"      wmma::fragment<wmma::matrix_a, FM, FN, FK, {a_type}, wmma::row_major> a[TM];",
        f"      wmma::fragment<wmma::matrix_b, FM, FN, FK, {a_type}, wmma::row_major> b[TN];",
        "#pragma unroll",
        "      for (int i = 0; i < TM; ++i) wmma::load_matrix_sync(a[i], as + (wm + i * FM) * LDA + kk, LDA);",
        "#pragma unroll",
        "      for (int j = 0; j < TN; ++j) wmma::load_matrix_sync(b[j], bs + kk * LDB + wn + j * FN, LDB);",
    ] + convert + [
        "#pragma unroll",
        "      for (int i = 0; i < TM; ++i)",
        "#pragma unroll",
        "        for (int j = 0; j < TN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);",
        "    }",
    ]
    return _kernel_head(
        ["// Each warp: TM x TN WMMA fragments of C, from fragments loaded out of the shared slices."], kind) + _shared_arrays(g, precision, 32) + [
        "  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;",
        "  const int wm = warp / WARPS_N * TM * FM, wn = warp % WARPS_N * TN * FN;  // the warp's corner in the tile",
        "  wmma::fragment<wmma::accumulator, FM, FN, FK, Acc> acc[TM][TN];",
        "#pragma unroll",
        "  for (int i = 0; i < TM; ++i)",
        "#pragma unroll",
        "    for (int j = 0; j < TN; ++j) wmma::fill_fragment(acc[i][j], Acc(0));",
    ] + _slice_loop(compute, g.stages > 1, kind) + [
        "  // Through shared memory, so that only the elements inside C are written.",
        "  for (int i = 0; i < TM; ++i)",
        "    for (int j = 0; j < TN; ++j) {",
        "      wmma::store_matrix_sync(Cs[warp], acc[i][j], FN, wmma::mem_row_major);",
        "      __syncwarp();",
        "      for (int e = lane; e < FM * FN; e += 32) {",
        "        const int r = blockIdx.y * BM + wm + i * FM + e / FN, c = blockIdx.x * BN + wn + j * FN + e % FN;",
        "        if (r < m && c < n) C[static_cast<size_t>(r) * n + c] = from_acc(Cs[warp][e]);",
        "      }",
        "      __syncwarp();",
        "    }",
        "}",
    ]


def _mma_instruction(k: int, precision: str) -> list[str]:
    """mma_tile: C(16 x 8) += A(16 x k) B(k x 8) of one warp, with the registers of the PTX ISA's
    fragments: f64 (DMMA) a[k/2], b[k/4], c[4] doubles; f16 and bf16 (HMMA, fp32 accumulation)
    a[4], b[2] registers of two 16-bit elements, c[4] floats."""
    if precision == "f64":
        a_count, b_count, kind, reg, acc = k // 2, k // 4, "f64.f64.f64.f64", "d", "double"
        a_type, b_type = "double", "double"
    else:
        a_count, b_count, kind, reg, acc = 4, 2, f"f32.{precision}.{precision}.f32", "r", "float"
        a_type, b_type = "unsigned", "unsigned"
    a_regs = ", ".join(f"%{4 + v}" for v in range(a_count))
    b_regs = ", ".join(f"%{4 + a_count + v}" for v in range(b_count))
    c_ref = "f" if precision in SIXTEEN_BIT else "d"
    inputs = ", ".join([f'"{reg}"(a[{v}])' for v in range(a_count)] + [f'"{reg}"(b[{v}])' for v in range(b_count)])
    return [
        f"constexpr int A_REGS = {a_count}, B_REGS = {b_count};  // per lane, one k step",
        f"static __device__ __forceinline__ void mma_tile({acc} (&c)[4], const {a_type} (&a)[A_REGS], const {b_type} (&b)[B_REGS]) {{",
        f'  asm volatile("mma.sync.aligned.m16n8k{k}.row.col.{kind} {{%0, %1, %2, %3}}, {{{a_regs}}}, {{{b_regs}}}, {{%0, %1, %2, %3}};"',
        f'               : "+{c_ref}"(c[0]), "+{c_ref}"(c[1]), "+{c_ref}"(c[2]), "+{c_ref}"(c[3]) : {inputs});',
        "}",
    ]


def _ldmatrix() -> list[str]:
    return [
        "// ldmatrix: lanes 0-7, 8-15, 16-23, 24-31 name the 16-byte rows of 8x8 matrices 0, 1, 2, 3",
        "// (.x2: the first two); each lane gets its fragment's registers, one per matrix.",
        "static __device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const T *row) {",
        "  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));",
        '  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"',
        '               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));',
        "}",
        "static __device__ __forceinline__ void ldmatrix_x2_trans(unsigned (&r)[2], const T *row) {",
        "  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));",
        '  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"',
        '               : "=r"(r[0]), "=r"(r[1]) : "r"(address));',
        "}",
    ]


def _mma_kernel(g: CudaGenome, precision: str, kind: Kind) -> list[str]:
    if precision == "f64":
        helpers = _mma_instruction(g.mma, precision)
        layout = [
            "// a[v] = A(g + 8 (v % 2), q + 4 (v / 2)), b[v] = B(q + 4 v, g), read element by element.",
        ]
        loads = [
            "      double a[TM][A_REGS], b[TN][B_REGS];",
            "#pragma unroll",
            "      for (int i = 0; i < TM; ++i)",
            "#pragma unroll",
            "        for (int v = 0; v < A_REGS; ++v) a[i][v] = as[(wm + i * FM + g + 8 * (v % 2)) * LDA + kk + q + 4 * (v / 2)];",
            "#pragma unroll",
            "      for (int j = 0; j < TN; ++j)",
            "#pragma unroll",
            "        for (int v = 0; v < B_REGS; ++v) b[j][v] = bs[(kk + q + 4 * v) * LDB + wn + j * FN + g];",
        ]
    else:
        helpers = _mma_instruction(g.mma, precision) + _ldmatrix()
        layout = [
            "// A's 16 x 16 as four 8x8 matrices (rows 0-7 and 8-15, k 0-7 then 8-15), B's 16 x 8 as two",
            "// (k 0-7, 8-15) loaded transposed: a lane gets A(g (+8), 2q, 2q + 1 (+8)) and B(2q, 2q + 1 (+8), g).",
        ]
        loads = [
            "      unsigned a[TM][A_REGS], b[TN][B_REGS];",
            "#pragma unroll",
            "      for (int i = 0; i < TM; ++i) ldmatrix_x4(a[i], as + (wm + i * FM + lane % 16) * LDA + kk + lane / 16 * 8);",
            "#pragma unroll",
            "      for (int j = 0; j < TN; ++j) ldmatrix_x2_trans(b[j], bs + (kk + lane % 16) * LDB + wn + j * FN);",
        ]
    compute = [
        "#pragma unroll",
        "    for (int kk = 0; kk < BK; kk += FK) {",
    ] + loads + [
        "#pragma unroll",
        "      for (int i = 0; i < TM; ++i)",
        "#pragma unroll",
        "        for (int j = 0; j < TN; ++j) mma_tile(acc[i][j], a[i], b[j]);",
        "    }",
    ]
    return helpers + _kernel_head([
        "// Each warp: TM x TN tiles of 16 x 8 elements of C, one mma.sync per tile and k step; in the",
        "// PTX ISA's fragment layout (g = lane / 4, q = lane % 4) c[v] = C(g + 8 (v / 2), 2 q + v % 2).",
    ] + layout, kind) + _shared_arrays(g, precision, 32) + [
        "  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;",
        "  const int wm = warp / WARPS_N * TM * FM, wn = warp % WARPS_N * TN * FN;  // the warp's corner in the tile",
        "  Acc acc[TM][TN][4] = {};",
    ] + _slice_loop(compute, g.stages > 1, kind) + [
        "#pragma unroll",
        "  for (int i = 0; i < TM; ++i)",
        "#pragma unroll",
        "    for (int j = 0; j < TN; ++j)",
        "#pragma unroll",
        "      for (int v = 0; v < 4; ++v) {",
        "        const int r = blockIdx.y * BM + wm + i * FM + g + 8 * (v / 2);",
        "        const int c = blockIdx.x * BN + wn + j * FN + 2 * q + v % 2;",
        "        if (r < m && c < n) C[static_cast<size_t>(r) * n + c] = from_acc(acc[i][j][v]);",
        "      }",
        "}",
    ]


def loop_genomes(seed: int, stages: dict | None = None, mutations: int = 10) -> list[tuple[str, str, CudaGenome]]:
    """(stage, precision, genome) for CI, made as the MAP-Elites loop makes them: per stage and
    precision, a random genome after `mutations` mutations in the stage, and a genome of the
    stage before it (the one after it for the first) repaired into the stage, as an elite is
    when the ladder moves."""
    rng = random.Random(seed)
    picked = []
    for index, stage in enumerate(CUDA_STAGES):
        other = CUDA_STAGES[index - 1] if index else CUDA_STAGES[1]
        for precision in PRECISIONS:
            walk = random_genome(rng, precision, stage, stages)
            for _ in range(mutations):
                walk = mutate(walk, precision, stage, rng, stages)
            moved = repair(random_genome(rng, precision, other, stages), precision, stage, rng, stages)
            for genome in dict.fromkeys((walk, moved)):
                picked.append((stage, precision, genome))
    return picked


# --- samples for the CI check -------------------------------------------------------------------

# The bf16 samples' problem: of the llm-layers catalog (the checks look it up among the built-in ones).
BF16_SAMPLE_PROBLEM = "llm-o-t4096-bf16"


def hopper_samples(seed: int, stages: dict | None = None) -> list[tuple[str, str, object, str]]:
    """(stage, precision, genome, origin) of the Hopper family (hopper_kernels.py) in cuda-hopper,
    fp16: its corner samples (hopper_kernels.sample_genomes), bf16: the tuned genome (the same
    code on another MMA atom); for each, classic elites of cuda-async repaired into it as when
    the ladder moves ("repaired")."""
    from . import hopper_kernels
    rng = random.Random(seed)
    picked = []
    for precision in hopper_kernels.PRECISIONS:
        corners = hopper_kernels.sample_genomes(seed, precision) if precision == "f16" else [hopper_kernels.TUNED]
        picked += [("cuda-hopper", precision, g, "corner") for g in corners]
        for _ in range(2 if precision == "f16" else 1):
            elite = random_genome(rng, precision, "cuda-async", stages)
            picked.append(("cuda-hopper", precision, hopper_kernels.repair(elite, precision, rng), "repaired"))
    return picked


def write_samples(directory: pathlib.Path, seed: int, size: int = 1024, hopper: bool = False) -> int:
    """Writes NNN.cu per sample and manifest.tsv (file, problem, stage, claimed techniques or '-',
    label): the corner samples of sample_genomes and the loop's own of loop_genomes; with
    `hopper`, also hopper_samples (stage cuda-hopper: CuTe's headers on the include path)."""
    from . import hopper_kernels
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("*.cu"):
        old.unlink()
    stages = load_cuda_ladder()
    samples = [(s, p, g, "corner") for s, p, g in sample_genomes(seed, stages=stages)]
    samples += [(s, p, g, "loop") for s, p, g in loop_genomes(seed, stages=stages)]
    if hopper:
        samples += hopper_samples(seed, stages)
    lines = []
    for index, (stage, precision, genome, origin) in enumerate(samples):
        name = f"{index:03d}.cu"
        if isinstance(genome, hopper_kernels.HopperGenome):
            (directory / name).write_text(hopper_kernels.render_hopper(genome, precision))
            claim = ",".join(hopper_kernels.techniques(genome))
        else:
            (directory / name).write_text(render_cuda(genome, precision))
            claim = ",".join(techniques(genome)) or "-"
        problem = f"{PROBLEM_PREFIX[precision]}-{size}" if precision in PROBLEM_PREFIX else BF16_SAMPLE_PROBLEM
        lines.append(f"{name}\t{problem}\t{stage}\t{claim}\t{genome.label()} ({origin})")
    (directory / "manifest.tsv").write_text("\n".join(lines) + "\n")
    return len(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write sample CUDA candidates for the pre-run checks.")
    parser.add_argument("--samples", required=True, type=pathlib.Path, help="output directory")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hopper", action="store_true",
                        help="also the Hopper family's samples in cuda-hopper (CuTe stage; wgmma, tma)")
    args = parser.parse_args(argv)
    count = write_samples(args.samples, args.seed, hopper=args.hopper)
    print(f"wrote {count} candidates to {args.samples}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
