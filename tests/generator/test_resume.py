"""A stopped search goes on from its report: genome labels parse back, MapElites.restore() takes
a report's archive, best, counts and history, the command line's --resume (against the stand-in
served coordinator), and the refusals (another problem, a corrupt report, a reused seed)."""
import random

import pytest

from hpcreward_generator import cuda_kernels as ck
from hpcreward_generator import kernels
from hpcreward_generator.family import family_for

PROBLEMS = ["dgemm-256", "sgemm-256", "cuda-dgemm-4096", "cuda-sgemm-4096", "cuda-hgemm-4096"]


def genomes_of_every_stage(family, rng, per_stage=40, mutations=10):
    """What the loop proposes in each of the family's stages: random genomes and mutation chains."""
    for stage in family.stages:
        for _ in range(per_stage):
            genome = family.random(rng, stage)
            yield genome
            for _ in range(mutations):
                genome = family.mutate(genome, rng, stage)
                yield genome


@pytest.mark.parametrize("problem", PROBLEMS)
def test_every_label_parses_back_to_its_genome(problem):
    family = family_for(problem)
    seen = set()
    for genome in genomes_of_every_stage(family, random.Random(7)):
        assert family.genome_type.from_label(genome.label()) == genome, genome
        seen.add(genome)
    assert len(seen) > 500  # many different genomes, not one drawn again and again


def test_labels_with_every_gene_set():
    c = kernels.Genome("kij", ti=16, tj=256, tk=32, unroll=8, jam=4, rows=4, openmp=True, pack=True)
    assert c.label() == "kij-t16x256x32-u8-j4-r4-OP" and kernels.Genome.from_label(c.label()) == c
    assert kernels.Genome.from_label("ikj-t64x64x0-u4-j2-r2-OVPR").to_dict() == dict(
        loop_order="ikj", ti=64, tj=64, tk=0, unroll=4, jam=2, rows=2, openmp=True, avx512=True, pack=True,
        restrict=True)
    assert kernels.Genome.from_label("ijk-t0x0x0-u1-j1-plain") == kernels.Genome("ijk")
    cuda = ck.CudaGenome.from_label("b64x256x32-t4x4-s3-SPVT-k16")
    assert cuda == ck.CudaGenome(bm=64, bn=256, bk=32, tm=4, tn=4, smem=True, pad=True, vec=True, tensor=True,
                                 stages=3, mma=16)
    assert ck.CudaGenome.from_label("b32x64x16-t2x2-s1-plain") == ck.CudaGenome(bm=32, bn=64, tm=2, tn=2)


@pytest.mark.parametrize("label", [
    "", "plain", "ikj-t64x64x0-u4-j2", "ikj-t64x64-u4-j2-plain", "ikj-t64x64x0-u4-j2-r1-plain",
    "ikj-t064x64x0-u4-j2-plain", "ikj-t64x64x0-u4-j2-RO", "ikj-t64x64x0-u4-j2-", "ikj-t64x64x0-u4-j2-OO",
    " ikj-t64x64x0-u4-j2-plain", "ikl-t64x64x0-u4-j2-plain", None, 42])
def test_a_c_label_that_does_not_parse_says_so(label):
    with pytest.raises(ValueError, match="is not a C genome label"):
        kernels.Genome.from_label(label)


@pytest.mark.parametrize("label", [
    "", "b64x256x32-t4x4-s3", "b64x256-t4x4-s3-SPVT", "b64x256x32-t4x4-s3-SPVT-k0", "b64x256x32-t4x4-s3-TS",
    "b64x256x32-t4x4-s3--k16", "b64x256x32-t4x4-s3-plain-k", "b64x256x32-t4x4-s03-plain",
    "ikj-t64x64x0-u4-j2-plain", None])
def test_a_cuda_label_that_does_not_parse_says_so(label):
    with pytest.raises(ValueError, match="is not a CUDA genome label"):
        ck.CudaGenome.from_label(label)
