"""A kernel family as the MAP-Elites loop sees it: what it needs from a parametric family of
candidates, and the two families there are, C (kernels.py) and CUDA (cuda_kernels.py).

The loop (map_elites.py) knows genomes only through this interface: it draws, mutates and
renders them, asks which techniques they use and which niche they fall in, and labels them in
its report (`genome_type` reads them back from one). A family is bound to one problem (its
precision) and to the stages of its ladder, as read from the ladder file.
"""
from __future__ import annotations

import random

from . import cuda_kernels, hopper_kernels, kernels
from .problem_kind import ROW_MAJOR, Kind


class CFamily:
    """C loop nests (kernels.py) for C problems on CPU ranks: f64 (double) or f32 (float), of any
    kind (problem_kind.py). Without a catalog's word, `sgemm-*` is f32 and the rest f64."""

    language = "c"
    first_stage = "o0"
    id_prefix = ""  # candidate ids s<seed>-b<batch>-<index>, as before there were two families
    genome_type = kernels.Genome  # from_dict(), from_label(): a report's genomes back

    def __init__(self, problem: str = "dgemm-256", ladder: str | None = None, precision: str | None = None,
                 kind: Kind = ROW_MAJOR, smallest: int = kernels.SMALLEST_NOMINAL):
        self.problem = problem
        self.precision = precision or ("f32" if problem.startswith("sgemm") else "f64")
        if self.precision not in ("f64", "f32"):
            raise ValueError(f"{problem!r}: a C problem is f64 or f32, not {self.precision}")
        self.kind = kind
        self.smallest = smallest  # the timed shape's smallest dimension: what a tile must be under
        stages, _ = kernels.load_ladder(ladder)
        self.stages = {name: rule for name, rule in stages.items() if not name.startswith("cuda-")}

    def random(self, rng: random.Random, stage: str) -> kernels.Genome:
        return kernels.random_genome(rng, stage, self.stages, self.smallest)

    def mutate(self, genome: kernels.Genome, rng: random.Random, stage: str) -> kernels.Genome:
        return kernels.mutate(genome, rng, stage, self.stages, self.smallest)

    def repair(self, genome: kernels.Genome, rng: random.Random, stage: str) -> kernels.Genome:
        return kernels.repair(genome, stage, rng, self.stages, self.smallest)

    def is_valid(self, genome: kernels.Genome, stage: str) -> bool:
        return kernels.is_valid(genome, stage, self.stages, self.smallest)

    def render(self, genome: kernels.Genome) -> str:
        return kernels.render(genome, self.precision, self.kind)

    def techniques(self, genome: kernels.Genome) -> tuple[str, ...]:
        return kernels.techniques(genome, self.smallest)

    def descriptor(self, genome: kernels.Genome) -> str:
        return kernels.descriptor(genome, self.smallest)


class CudaGenomes:
    """A CUDA search's genome read back from a report: the classic family's `CudaGenome`
    (labels b..., e.g. b64x256x32-t4x4-s3-SPVT-k16) or the Hopper family's `HopperGenome`
    (labels h..., e.g. h128x256x64-s4-w2-P-c1-g8; its fields name `consumers`)."""

    __name__ = "CUDA genome (CudaGenome or HopperGenome)"

    @staticmethod
    def from_label(label):
        if isinstance(label, str) and label.startswith("h"):
            return hopper_kernels.HopperGenome.from_label(label)
        return cuda_kernels.CudaGenome.from_label(label)

    @staticmethod
    def from_dict(data):
        if isinstance(data, dict) and "consumers" in data:
            return hopper_kernels.HopperGenome.from_dict(data)
        return cuda_kernels.CudaGenome.from_dict(data)


class CudaFamily:
    """CUDA kernels for CUDA problems on GPU ranks, of any precision and kind: cuda_kernels.py's
    (`CudaGenome`) in every stage but those that require Hopper's wgmma or tma (cuda-hopper),
    where hopper_kernels.py's CuTe kernels (`HopperGenome`) are the family. A problem without
    Hopper kernels (fp64 and fp32: wgmma's fp32 form takes both operands K-major; a layout
    other than nn) has no such stage. Without a catalog's word, the default catalog's
    `cuda-dgemm-*`, `cuda-sgemm-*`, `cuda-hgemm-*`.

    When the ladder moves into the Hopper stage the loop's parents are the classic elites: a
    mutation there repairs one into the nearest HopperGenome (its block tile and depth where
    the Hopper family has them), and the other way round for a Hopper genome in a classic stage."""

    language = "cuda"
    first_stage = "cuda-naive"
    id_prefix = "cuda-"  # unlike the C search's ids, so both searches can share one batch
    genome_type = CudaGenomes

    def __init__(self, problem: str = "cuda-sgemm-4096", ladder: str | None = None, precision: str | None = None,
                 kind: Kind = ROW_MAJOR):
        self.problem = problem
        self.precision = precision or next((p for p, prefix in cuda_kernels.PROBLEM_PREFIX.items()
                                            if problem.startswith(prefix + "-")), None)
        if self.precision is None:
            raise ValueError(f"{problem!r} is not a CUDA problem of the default catalog (cuda-dgemm-N, "
                             "cuda-sgemm-N, cuda-hgemm-N); name its catalog (--problems-json)")
        self.kind = kind
        stages = cuda_kernels.load_cuda_ladder(ladder)
        hopper = bool(hopper_kernels.all_genomes(self.precision, kind)) if self.precision in hopper_kernels.PRECISIONS else False
        self.hopper_stages = {name for name, rule in stages.items() if hopper_kernels.is_hopper_stage(rule)}
        self.stages = {name: rule for name, rule in stages.items() if hopper or name not in self.hopper_stages}

    def _hopper(self, stage: str | None) -> bool:
        return stage in self.hopper_stages

    # Draws until the genome suits the problem's kind too (cuda_kernels.problems: a few
    # genomes cannot read two transposed 16-bit operands asynchronously).
    _TRIES = 200

    def random(self, rng: random.Random, stage: str):
        if self._hopper(stage):
            return hopper_kernels.random_genome(rng, self.precision, self.kind)
        for _ in range(self._TRIES):
            genome = cuda_kernels.random_genome(rng, self.precision, stage, self.stages)
            if self.is_valid(genome, stage):
                return genome
        raise ValueError(f"{self.problem}: no {stage} kernel of this family for its layout "
                         f"({cuda_kernels.problems(genome, self.precision, self.kind)[0]})")

    def mutate(self, genome, rng: random.Random, stage: str):
        if self._hopper(stage):
            return hopper_kernels.mutate(genome, self.precision, rng, self.kind)
        genome = self._classic(genome, rng, stage)
        for _ in range(self._TRIES):
            mutant = cuda_kernels.mutate(genome, self.precision, stage, rng, self.stages)
            if self.is_valid(mutant, stage):
                return mutant
        return self.random(rng, stage)

    def repair(self, genome, rng: random.Random, stage: str):
        if self._hopper(stage):
            return hopper_kernels.repair(genome, self.precision, rng, self.kind)
        return cuda_kernels.repair(self._classic(genome, rng, stage), self.precision, stage, rng, self.stages)

    def _classic(self, genome, rng: random.Random, stage: str) -> cuda_kernels.CudaGenome:
        """A CudaGenome for a classic stage: a Hopper genome becomes the staged tensor-core
        kernel of its block tile (within the classic sizes) and depth, repaired into `stage`."""
        if isinstance(genome, cuda_kernels.CudaGenome):
            return genome
        def nearest(value):
            return min(cuda_kernels.BLOCK_SIZES, key=lambda b: (abs(b - value), b))
        classic = cuda_kernels.CudaGenome(bm=nearest(genome.bm), bn=nearest(genome.bn), bk=32, tm=4, tn=4, smem=True,
                                          pad=True, vec=True, tensor=True,
                                          stages=min(genome.stages, max(cuda_kernels.PIPELINE_STAGES)))
        return cuda_kernels.repair(classic, self.precision, stage, rng, self.stages)

    def is_valid(self, genome, stage: str | None) -> bool:
        if isinstance(genome, hopper_kernels.HopperGenome):
            if stage is not None and (not self._hopper(stage) or stage not in self.stages):
                return False
            return hopper_kernels.is_valid(genome, self.precision, None, self.kind)
        if stage is not None and self._hopper(stage):
            return False
        return cuda_kernels.is_valid(genome, self.precision, stage, self.stages, self.kind)

    def render(self, genome) -> str:
        if isinstance(genome, hopper_kernels.HopperGenome):
            return hopper_kernels.render_hopper(genome, self.precision, self.kind)
        return cuda_kernels.render_cuda(genome, self.precision, self.kind)

    def techniques(self, genome) -> tuple[str, ...]:
        if isinstance(genome, hopper_kernels.HopperGenome):
            return hopper_kernels.techniques(genome)
        return cuda_kernels.techniques(genome)

    def descriptor(self, genome) -> str:
        if isinstance(genome, hopper_kernels.HopperGenome):
            return hopper_kernels.descriptor(genome)
        return cuda_kernels.descriptor(genome)


def family_for(problem: str, ladder: str | None = None, catalog: list[dict] | None = None) -> CFamily | CudaFamily:
    """The family that writes candidates for `problem`. With `catalog` (the "problems" of
    `hpcreward-problems --json`), as the catalog defines it: language, precision, kind; without,
    a problem of the default catalog by its name: CUDA for `cuda-*`, C otherwise."""
    if catalog is None:
        return CudaFamily(problem, ladder) if problem.startswith("cuda-") else CFamily(problem, ladder)
    entry = next((p for p in catalog if p["id"] == problem), None)
    if entry is None:
        raise ValueError(f"{problem!r} is not in the catalog (its problems: {', '.join(p['id'] for p in catalog)})")
    if entry["language"] == "cuda":
        return CudaFamily(problem, ladder, precision=entry["precision"], kind=Kind.of(entry))
    return CFamily(problem, ladder, precision=entry["precision"], kind=Kind.of(entry),
                   smallest=smallest_dimension(entry))


def smallest_dimension(problem: dict) -> int:
    """The smallest of m, n, k of a catalog problem's nominal shape ("8*128x128x128": 128)."""
    shape = problem["nominal"].split("*")[-1]
    return min(int(size) for size in shape.split("x"))
