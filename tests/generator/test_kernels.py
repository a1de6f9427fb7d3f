"""Rendered candidates compile under their stage's flags and compute C = A * B at every shape."""
import concurrent.futures
import os
import random
import resource
import shutil
import subprocess

import pytest

from hpcreward_generator import kernels
from hpcreward_generator.kernels import Genome

HERE = os.path.dirname(os.path.abspath(__file__))
LADDER = ["o0", "o3", "openmp", "avx512", "blocking"]
SHAPES = ["256", "256", "256", "257", "255", "263", "31", "17", "23", "1", "1", "1"]
STAGES, FLAGS = kernels.load_ladder()


def cpu_has_avx512():
    try:
        with open("/proc/cpuinfo") as info:
            return "avx512f" in info.read()
    except OSError:
        return False


def limits():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))


def build_driver(directory, real):
    if not shutil.which("gcc"):
        pytest.skip("gcc not found")
    path = directory / f"driver-{real}"
    subprocess.run(["gcc", "-O2", f"-DREAL={real}", "-o", str(path), os.path.join(HERE, "driver.c"), "-ldl", "-lm"],
                   check=True)
    return str(path)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return build_driver(tmp_path_factory.mktemp("driver"), "double")


@pytest.fixture(scope="module")
def driver_f32(tmp_path_factory):
    return build_driver(tmp_path_factory.mktemp("driver"), "float")


def random_genomes(count, seed=2024):
    rng = random.Random(seed)
    stages = LADDER if cpu_has_avx512() else ["o0", "o3", "openmp"]
    return [(stage, kernels.random_genome(rng, stage, STAGES))
            for stage in (stages[i % len(stages)] for i in range(count))]


def build_and_check(driver, directory, index, stage, genome, precision="f64"):
    source = kernels.render(genome, precision)
    c_file, so_file = directory / f"c{index}.c", directory / f"c{index}.so"
    c_file.write_text(source)
    compiled = subprocess.run(["gcc", "-std=gnu11", "-shared", "-fPIC", *FLAGS[stage], "-Wall", "-Werror",
                               "-o", str(so_file), str(c_file)],
                              capture_output=True, text=True, preexec_fn=limits, timeout=120)
    if compiled.returncode:
        return f"{stage} {genome.label()}: compile failed\n{compiled.stderr[:1500]}"
    # Passive waits: 40 kernels run at once on few cores; spinning OpenMP barriers would burn
    # the CPU-time limit under that oversubscription.
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    ran = subprocess.run([driver, str(so_file), *SHAPES], capture_output=True, text=True, preexec_fn=limits,
                         timeout=120, env=env)
    if ran.returncode or ran.stdout.strip() != "ok":
        return f"{stage} {genome.label()}: {ran.stdout.strip()[:500]} {ran.stderr[:500]} (exit {ran.returncode})"
    return None


def test_random_genomes_compile_and_compute_the_product(driver, tmp_path):
    genomes = random_genomes(40)
    assert {stage for stage, _ in genomes} >= {"o0", "o3", "openmp"}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        failures = [f for f in pool.map(lambda args: build_and_check(driver, tmp_path, *args),
                                         [(i, stage, g) for i, (stage, g) in enumerate(genomes)]) if f]
    assert not failures, "\n".join(failures)


def test_float_candidates_for_sgemm(driver_f32, tmp_path):
    genomes = random_genomes(10, seed=77)
    failures = [f for i, (stage, g) in enumerate(genomes)
                if (f := build_and_check(driver_f32, tmp_path, i, stage, g, "f32"))]
    assert not failures, "\n".join(failures)


def test_hand_picked_corners(driver, tmp_path):
    """Every order, the largest tiles, packing under OpenMP, jam with unroll, rows x jam register
    blocks, tiles larger than the shape."""
    picks = [("o3", Genome(order, unroll=8, restrict=True)) for order in kernels.ORDERS]
    picks += [("open", Genome("jki", ti=0, tk=16, unroll=4, openmp=True)),
              ("open", Genome("kji", ti=256, tj=256, tk=128, pack=True, openmp=True)),
              ("o3", Genome("ikj", jam=4, unroll=8, restrict=True)),
              ("open", Genome("ikj", ti=64, tk=32, rows=4, jam=2, openmp=True, restrict=True)),
              ("o3", Genome("ikj", rows=2))]
    if cpu_has_avx512():
        picks += [("blocking", Genome("ikj", ti=32, tj=128, tk=64, unroll=2, jam=2, openmp=True, avx512=True,
                                      pack=True, restrict=True)),
                  ("blocking", Genome("kij", ti=16, tj=256, tk=16, unroll=8, avx512=True, pack=True, openmp=True)),
                  ("avx512", Genome("ikj", unroll=8, jam=4, avx512=True)),
                  ("blocking", Genome("ikj", tj=128, tk=64, jam=4, rows=4, avx512=True, restrict=True)),
                  ("blocking", Genome("ikj", ti=16, tj=32, tk=16, jam=2, rows=4, unroll=1, avx512=True,
                                      pack=True, openmp=True)),
                  ("avx512", Genome("ikj", rows=2, unroll=4, avx512=True, openmp=True))]
    assert [(stage, g) for stage, g in picks if not kernels.is_valid(g, stage)] == []
    failures = [f for i, (stage, g) in enumerate(picks) if (f := build_and_check(driver, tmp_path, i, stage, g))]
    assert not failures, "\n".join(failures)


def test_techniques_and_validity():
    g = Genome("ikj", ti=64, openmp=True, avx512=True)
    assert kernels.techniques(g) == ("openmp", "avx512", "blocking")
    assert kernels.is_valid(g, "blocking") and not kernels.is_valid(g, "avx512")
    assert kernels.is_valid(Genome("ikj", avx512=True), "avx512")
    assert not kernels.is_valid(Genome("ijk", avx512=True))  # j is not innermost
    assert not kernels.is_valid(Genome("ikj", tj=256, tk=256, pack=True))  # 512 KiB on the stack
    with pytest.raises(ValueError):
        kernels.render(Genome("ijk", avx512=True))
    source = kernels.render(Genome("ikj"))
    assert "#include" not in source and "printf" not in source and "malloc" not in source
    assert "void matmul(int m, int n, int k, const double *A, const double *B, double *C)" in source
    assert "float" in kernels.render(Genome("ikj", avx512=True), "f32")
