"""A kernel family as the MAP-Elites loop sees it: what it needs from a parametric family of
candidates, and the two families there are, C (kernels.py) and CUDA (cuda_kernels.py).

The loop (map_elites.py) knows genomes only through this interface: it draws, mutates and
renders them, asks which techniques they use and which niche they fall in, and labels them in
its report (`genome_type` reads them back from one). A family is bound to one problem (its
precision) and to the stages of its ladder, as read from the ladder file.
"""
from __future__ import annotations

import random

from . import cuda_kernels, kernels


class CFamily:
    """C loop nests (kernels.py) for `dgemm-*` (double) and `sgemm-*` (float) on CPU ranks."""

    language = "c"
    first_stage = "o0"
    id_prefix = ""  # candidate ids s<seed>-b<batch>-<index>, as before there were two families
    genome_type = kernels.Genome  # from_dict(), from_label(): a report's genomes back

    def __init__(self, problem: str = "dgemm-256", ladder: str | None = None):
        self.problem = problem
        self.precision = "f32" if problem.startswith("sgemm") else "f64"
        stages, _ = kernels.load_ladder(ladder)
        self.stages = {name: rule for name, rule in stages.items() if not name.startswith("cuda-")}

    def random(self, rng: random.Random, stage: str) -> kernels.Genome:
        return kernels.random_genome(rng, stage, self.stages)

    def mutate(self, genome: kernels.Genome, rng: random.Random, stage: str) -> kernels.Genome:
        return kernels.mutate(genome, rng, stage, self.stages)

    def repair(self, genome: kernels.Genome, rng: random.Random, stage: str) -> kernels.Genome:
        return kernels.repair(genome, stage, rng, self.stages)

    def is_valid(self, genome: kernels.Genome, stage: str) -> bool:
        return kernels.is_valid(genome, stage, self.stages)

    def render(self, genome: kernels.Genome) -> str:
        return kernels.render(genome, self.precision)

    def techniques(self, genome: kernels.Genome) -> tuple[str, ...]:
        return kernels.techniques(genome)

    def descriptor(self, genome: kernels.Genome) -> str:
        return kernels.descriptor(genome)


class CudaFamily:
    """CUDA kernels (cuda_kernels.py) for `cuda-dgemm-*`, `cuda-sgemm-*`, `cuda-hgemm-*` on GPU ranks."""

    language = "cuda"
    first_stage = "cuda-naive"
    id_prefix = "cuda-"  # unlike the C search's ids, so both searches can share one batch
    genome_type = cuda_kernels.CudaGenome

    def __init__(self, problem: str = "cuda-sgemm-4096", ladder: str | None = None):
        self.problem = problem
        self.precision = next((p for p, prefix in cuda_kernels.PROBLEM_PREFIX.items()
                               if problem.startswith(prefix + "-")), None)
        if self.precision is None:
            raise ValueError(f"{problem!r} is not a CUDA problem (cuda-dgemm-N, cuda-sgemm-N, cuda-hgemm-N)")
        self.stages = cuda_kernels.load_cuda_ladder(ladder)

    def random(self, rng: random.Random, stage: str) -> cuda_kernels.CudaGenome:
        return cuda_kernels.random_genome(rng, self.precision, stage, self.stages)

    def mutate(self, genome: cuda_kernels.CudaGenome, rng: random.Random, stage: str) -> cuda_kernels.CudaGenome:
        return cuda_kernels.mutate(genome, self.precision, stage, rng, self.stages)

    def repair(self, genome: cuda_kernels.CudaGenome, rng: random.Random, stage: str) -> cuda_kernels.CudaGenome:
        return cuda_kernels.repair(genome, self.precision, stage, rng, self.stages)

    def is_valid(self, genome: cuda_kernels.CudaGenome, stage: str) -> bool:
        return cuda_kernels.is_valid(genome, self.precision, stage, self.stages)

    def render(self, genome: cuda_kernels.CudaGenome) -> str:
        return cuda_kernels.render_cuda(genome, self.precision)

    def techniques(self, genome: cuda_kernels.CudaGenome) -> tuple[str, ...]:
        return cuda_kernels.techniques(genome)

    def descriptor(self, genome: cuda_kernels.CudaGenome) -> str:
        return cuda_kernels.descriptor(genome)


def family_for(problem: str, ladder: str | None = None) -> CFamily | CudaFamily:
    """The family that writes candidates for `problem`: CUDA for `cuda-*`, C otherwise."""
    return CudaFamily(problem, ladder) if problem.startswith("cuda-") else CFamily(problem, ladder)
