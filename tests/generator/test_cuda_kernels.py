"""The CUDA family's genomes, stage fit and sources, without nvcc (the pre-run checks of the
rendered samples are cuda_checks.generator_cuda, tests/cuda_checks/generated_cuda_test.cpp)."""
import dataclasses
import random
import re

import pytest

from hpcreward_generator import cuda_kernels as ck
from hpcreward_generator.cuda_kernels import CudaGenome

STAGES = ck.load_cuda_ladder()
# The CUDA include allow-list's headers this family may use (bench_node/cuda/cuda_include_policy.cpp).
ALLOWED_HEADERS = {"cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "mma.h", "cuda_pipeline.h"}


def test_ladder_file_matches_builtin_copy():
    for stage in ck.CUDA_STAGES:
        assert STAGES[stage] == ck.DEFAULT_STAGES[stage]


@pytest.mark.parametrize("stage", ck.CUDA_STAGES)
@pytest.mark.parametrize("precision", ck.PRECISIONS)
def test_every_stage_has_genomes_that_fit_it(stage, precision):
    valid = ck.all_genomes(precision, stage, STAGES)
    assert valid
    allows, requires = STAGES[stage]
    for genome in valid:
        used = set(ck.techniques(genome))
        assert used <= set(allows) and set(requires) <= used


def test_claims_follow_the_genes():
    assert ck.techniques(CudaGenome()) == ()
    assert ck.techniques(CudaGenome(smem=True)) == ("smem",)
    assert ck.techniques(CudaGenome(smem=True, tensor=True, bm=64, tm=1, tn=1)) == ("smem", "tensor")
    assert ck.techniques(CudaGenome(smem=True, tensor=True, stages=3)) == ("smem", "tensor", "async")


def test_problems_refuses_what_cannot_render():
    assert ck.problems(CudaGenome(bm=48), "f64")
    assert ck.problems(CudaGenome(tensor=True), "f64")                       # tensor without smem
    assert ck.problems(CudaGenome(bm=16, bn=16, tm=8, tn=8), "f32")          # 4 threads
    assert ck.problems(CudaGenome(smem=True, tensor=True, bk=8, bm=64, tm=1, tn=1), "f16")  # k of 16
    assert ck.problems(CudaGenome(smem=True, bm=128, bn=128, bk=32, tm=8, tn=8, stages=3), "f64")  # smem
    with pytest.raises(ValueError):
        ck.render_cuda(CudaGenome(bm=48), "f64")


def test_samples_cover_every_stage_and_precision_and_fit():
    samples = ck.sample_genomes(seed=1, stages=STAGES)
    assert {(stage, precision) for stage, precision, _ in samples} == {
        (s, p) for s in ck.CUDA_STAGES for p in ck.PRECISIONS}
    assert any(g.tensor for s, _, g in samples if s == "cuda-async")
    assert samples == ck.sample_genomes(seed=1, stages=STAGES)  # seeded
    for stage, precision, genome in samples:
        assert ck.is_valid(genome, precision, stage, STAGES)
        assert ck.shared_bytes(genome, precision) <= ck.MAX_SMEM
    # The samples CI compiles include kernels with dynamic shared memory.
    assert any(ck.dynamic_shared(g, p) for _, p, g in samples)


@pytest.mark.parametrize("precision", ck.PRECISIONS)
def test_large_shared_memory_is_dynamic_and_opted_in(precision):
    for stage in ("cuda-tensor", "cuda-async"):
        for genome in ck.all_genomes(precision, stage, STAGES):
            source = ck.render_cuda(genome, precision)
            dynamic = ck.shared_bytes(genome, precision) > ck.MAX_STATIC_SMEM
            assert dynamic == ck.dynamic_shared(genome, precision)
            assert ("extern __shared__" in source) == dynamic
            assert ("cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);" in source) == dynamic
            if dynamic:
                assert f"constexpr int SMEM = {ck.shared_bytes(genome, precision)};" in source
                assert "gemm<<<grid, THREADS, SMEM>>>" in source


@pytest.mark.parametrize("precision", ck.PRECISIONS)
def test_sources_use_only_what_their_genome_says(precision):
    rng = random.Random(7)
    for stage in ck.CUDA_STAGES:
        for genome in rng.sample(ck.all_genomes(precision, stage, STAGES), 20):
            source = ck.render_cuda(genome, precision)
            headers = set(re.findall(r"#include <([^>]+)>", source))
            assert headers <= ALLOWED_HEADERS
            assert f"const {ck.ELEMENT[precision]} *A" in source
            assert 'extern "C" void matmul(int m, int n, int k,' in source
            assert ("__shared__" in source) == genome.smem
            assert ("wmma::mma_sync" in source) == (genome.tensor and not genome.mma)
            assert ("mma.sync.aligned.m16n8k" in source) == bool(genome.mma)
            assert ("__pipeline_memcpy_async" in source) == (genome.stages > 1)
            for word in ("printf", "malloc", "clock", "cublas", "cudaMalloc", "cudaDeviceSynchronize"):
                assert word not in source


def test_tf32_for_sgemm_fp16_with_fp32_accumulation_for_hgemm():
    genome = CudaGenome(bm=64, bn=64, bk=16, tm=2, tn=2, smem=True, tensor=True)
    assert "wmma::precision::tf32" in ck.render_cuda(genome, "f32")
    hgemm = ck.render_cuda(genome, "f16")
    assert "typedef float Acc;" in hgemm and "__half" in hgemm
    assert "wmma::fragment<wmma::accumulator, FM, FN, FK, Acc>" in ck.render_cuda(genome, "f64")


def test_mma_genomes_are_tensor_kernels_of_the_shapes_their_precision_has():
    mma = CudaGenome(bm=64, bn=64, bk=16, tm=2, tn=2, smem=True, tensor=True, mma=8)
    assert not ck.problems(mma, "f64")
    assert ck.problems(mma, "f32") and ck.problems(mma, "f16")           # no such shape there
    assert not ck.problems(dataclasses.replace(mma, mma=16), "f16")
    assert ck.problems(dataclasses.replace(mma, mma=16), "f32")           # TF32 stays WMMA
    assert ck.problems(CudaGenome(smem=True, mma=8), "f64")               # mma without tensor
    assert ck.problems(CudaGenome(bm=64, bn=64, bk=8, tm=2, tn=2, smem=True, tensor=True, mma=16), "f64")  # bk < k
    assert ck.problems(CudaGenome(bm=128, bn=64, bk=16, tm=4, tn=4, smem=True, tensor=True, mma=16), "f64")  # registers
    assert ck.mma_fragment_registers(CudaGenome(tm=4, tn=4, mma=16), "f64") > ck.MAX_MMA_FRAGMENT_REGISTERS
    assert ck.mma_fragment_registers(CudaGenome(tm=4, tn=4, mma=16), "f16") == 64 + 16 + 8
    for stage in ("cuda-tensor", "cuda-async"):
        assert not any(g.mma for g in ck.all_genomes("f32", stage, STAGES))
        assert {g.mma for g in ck.all_genomes("f16", stage, STAGES)} == {0, 16}
        assert {g.mma for g in ck.all_genomes("f64", stage, STAGES)} == {0, 4, 8, 16}
    # A repair into a stage without tensor cores, or for a precision without the shape, moves mma.
    rng = random.Random(3)
    assert ck.repair(mma, "f64", "cuda-smem", rng, STAGES).mma == 0
    assert ck.repair(mma, "f32", "cuda-tensor", rng, STAGES).mma == 0
    assert ck.repair(mma, "f16", "cuda-tensor", rng, STAGES).mma == 16


@pytest.mark.parametrize("k", ck.MMA_KS)
def test_dgemm_mma_source_has_the_hopper_fp64_shape_and_its_operands(k):
    genome = CudaGenome(bm=64, bn=64, bk=16, tm=2, tn=2, smem=True, pad=True, tensor=True, stages=2, mma=k)
    assert ck.threads(genome, "f64") == 32 * (64 // (2 * 16)) * (64 // (2 * 8))
    assert ck.pad_elements(genome, "f64") == 4  # 32 bytes: conflict-free fragment loads
    source = ck.render_cuda(genome, "f64")
    d, a, b, c = mma_operands(source, f"m16n8k{k}.row.col.f64.f64.f64.f64")
    assert len(d) == len(c) == 4 and len(a) == k // 2 and len(b) == k // 4
    assert f"constexpr int FM = 16, FN = 8, FK = {k};" in source
    assert "mma.h" not in source and "wmma" not in source and "Cs[" not in source and "ldmatrix" not in source
    assert genome.label().endswith(f"-k{k}")


def test_hgemm_mma_source_loads_fragments_with_ldmatrix_and_accumulates_in_fp32():
    genome = CudaGenome(bm=128, bn=128, bk=32, tm=4, tn=4, smem=True, pad=True, vec=True, tensor=True, stages=3,
                        mma=16)
    assert ck.pad_elements(genome, "f16") == 8  # 16 bytes: ldmatrix's rows in distinct banks
    source = ck.render_cuda(genome, "f16")
    d, a, b, c = mma_operands(source, "m16n8k16.row.col.f32.f16.f16.f32")
    assert (len(d), len(a), len(b), len(c)) == (4, 4, 2, 4)
    assert '"+f"(c[0])' in source and "typedef float Acc;" in source
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in source
    assert "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16" in source
    assert "__float2half" in source and "wmma" not in source


def mma_operands(source, kind):
    """The four operand lists of the source's one mma.sync of `kind`."""
    found = re.findall(r'"mma\.sync\.aligned\.' + re.escape(kind) + r' '
                       r'\{([^}]*)\}, \{([^}]*)\}, \{([^}]*)\}, \{([^}]*)\};"', source)
    assert len(found) == 1, found
    return [part.split(", ") for part in found[0]]


def test_ci_samples_include_every_mma_shape():
    samples = ck.sample_genomes(seed=1, stages=STAGES)
    for stage in ("cuda-tensor", "cuda-async"):
        for precision, shapes in ck.MMA_SHAPES.items():
            assert {g.mma for s, p, g in samples if s == stage and p == precision} >= {0, *shapes}
