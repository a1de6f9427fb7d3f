"""Kernels for every problem kind (problem_kind.Kind: transposed operands, strided batches):
the C ones compile under their stage's flags and compute every product of a batch right, on
odd sizes; the CUDA ones compile with nvcc (they ran on an H200: docs/reports/gpu-runs.md)."""
import concurrent.futures
import ctypes
import os
import random
import shutil
import subprocess

import pytest

from hpcreward_generator import cuda_kernels, kernels
from hpcreward_generator.problem_kind import Kind

from test_kernels import STAGES, FLAGS, cpu_has_avx512, limits

KINDS = [Kind(True, False), Kind(False, True), Kind(True, True), Kind(False, False, True), Kind(True, True, True)]


def reference(kind, batch, m, n, k, a, b):
    c = []
    for q in range(batch):
        A, B = a[q * m * k:(q + 1) * m * k], b[q * k * n:(q + 1) * k * n]
        for i in range(m):
            for j in range(n):
                c.append(sum((A[p * m + i] if kind.transpose_a else A[i * k + p]) *
                             (B[j * k + p] if kind.transpose_b else B[p * n + j]) for p in range(k)))
    return c


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: repr(kind))
def test_c_kernels_of_every_kind_compute_every_product(kind, tmp_path):
    if not shutil.which("gcc"):
        pytest.skip("gcc not found")
    rng = random.Random(hash(repr(kind)) & 0xffff)
    stages = ["o0", "o3", "openmp"] + (["avx512", "blocking"] if cpu_has_avx512() else [])
    batch, m, n, k = (3 if kind.batched else 1), 70, 45, 37
    a = [rng.uniform(-1, 1) for _ in range(batch * m * k)]
    b = [rng.uniform(-1, 1) for _ in range(batch * k * n)]
    expected = reference(kind, batch, m, n, k, a, b)
    for index, stage in enumerate(stages):
        genome = kernels.random_genome(rng, stage, STAGES)
        source, library = tmp_path / f"k{index}.c", tmp_path / f"k{index}.so"
        source.write_text(kernels.render(genome, "f64", kind))
        compiled = subprocess.run(["gcc", "-std=gnu11", "-shared", "-fPIC", *FLAGS[stage], "-Wall", "-Werror",
                                   "-o", str(library), str(source)], capture_output=True, text=True,
                                  preexec_fn=limits, timeout=120)
        assert compiled.returncode == 0, f"{stage} {genome.label()}: {compiled.stderr[:1500]}"
        matmul = ctypes.CDLL(str(library)).matmul
        A, B = (ctypes.c_double * len(a))(*a), (ctypes.c_double * len(b))(*b)
        C = (ctypes.c_double * len(expected))(*([float("nan")] * len(expected)))
        sizes = [batch, m, n, k] if kind.batched else [m, n, k]
        matmul(*[ctypes.c_int(size) for size in sizes], A, B, C)
        worst = max(abs(got - want) for got, want in zip(C, expected))
        assert worst < 1e-12, f"{stage} {genome.label()} {kind}: worst error {worst}"


def test_cuda_kernels_of_every_kind_compile(tmp_path):
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if nvcc is None:
        pytest.skip("nvcc not found")
    rng = random.Random(36)
    jobs = []
    for index, kind in enumerate(KINDS):
        for stage in cuda_kernels.CUDA_STAGES:
            precision = cuda_kernels.PRECISIONS[(index + len(jobs)) % len(cuda_kernels.PRECISIONS)]
            genomes = [g for g in cuda_kernels.all_genomes(precision, stage) if cuda_kernels.is_valid(g, precision, stage, kind=kind)]
            if not genomes:  # two transposed 16-bit operands have no cp.async kernel
                assert stage == "cuda-async" and kind.transpose_a and kind.transpose_b
                continue
            source = tmp_path / f"k{len(jobs)}.cu"
            source.write_text(cuda_kernels.render_cuda(rng.choice(genomes), precision, kind))
            jobs.append((source, stage, precision, kind))
    def compile_one(job):  # two at a time: nvcc takes about 1 GB each
        done = subprocess.run([nvcc, "-arch=sm_90", "-std=c++17", "-c", str(job[0]), "-o", os.devnull],
                              capture_output=True, text=True, timeout=600)
        return None if done.returncode == 0 else f"{job[1:]}: {(done.stdout + done.stderr)[:800]}"
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        failures = [failure for failure in pool.map(compile_one, jobs) if failure]
    assert len(jobs) >= 18
    assert not failures, "\n".join(failures)
