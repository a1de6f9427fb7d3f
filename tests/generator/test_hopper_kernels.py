"""The CUDA family's Hopper rung (hopper_kernels.py, stage cuda-hopper): genomes, stage fit,
labels, repair and mutation in the stage and from the classic family's elites, the sources; and,
where nvcc and CuTe's headers are installed, that rendered genomes compile with the GPU rank's
command and their SASS holds HGMMA and UTMALDG (that they are right and fast needs an H100/H200:
tests/gpu/hopper_gemm_probe.py)."""
import concurrent.futures
import os
import pathlib
import random
import re
import shutil
import subprocess

import pytest

from hpcreward_generator import cuda_kernels as ck
from hpcreward_generator import hopper_kernels as hk
from hpcreward_generator.family import CudaFamily, CudaGenomes, family_for
from hpcreward_generator.hopper_kernels import HopperGenome
from hpcreward_generator.problem_kind import Kind

STAGES = ck.load_cuda_ladder()
STAGE = "cuda-hopper"
# The CuTe stage's include list (bench_node/cuda/README.md, "In a stage that allows CuTe") and
# the toolkit's and compiler's headers this family uses.
ALLOWED_HEADER = re.compile(r"cute/[\w/]+\.hpp|cutlass/(arch|pipeline)/[\w/]+\.(h|hpp)|cutlass/numeric_types\.h|"
                            r"cuda_runtime\.h|cuda_fp16\.h|cuda_bf16\.h|cstdint")


def test_the_ladder_has_the_hopper_stage_as_the_builtin_copy_says():
    assert STAGES[STAGE] == ck.DEFAULT_STAGES[STAGE]
    assert hk.is_hopper_stage(STAGES[STAGE]) and hk.fits_stage(STAGES[STAGE])
    for stage in ck.CUDA_STAGES + ("cuda-open", "cuda-cute"):
        assert not hk.is_hopper_stage(STAGES[stage])
    # cuda-async allows wgmma and tma (they refine tensor and async), but requires neither.
    assert hk.fits_stage(STAGES["cuda-async"]) and not hk.fits_stage(STAGES["cuda-tensor"])


@pytest.mark.parametrize("precision", hk.PRECISIONS)
def test_every_genome_obeys_the_limits(precision):
    valid = hk.all_genomes(precision)
    assert 100 < len(valid) < 2000
    assert hk.TUNED in valid
    for g in valid:
        assert g.bm % (64 * g.consumers) == 0 and g.bm // g.consumers in (64, 128)
        assert hk.accumulators(g) <= hk.MAX_ACCUMULATORS
        assert hk.shared_bytes(g) <= hk.MAX_SMEM
        assert hk.threads(g) in (128, 256, 384)
    assert {g.cluster for g in valid} == {1, 2} and {g.producer for g in valid} == {False, True}
    assert {g.consumers for g in valid} == {1, 2} and max(g.stages for g in valid) == 7


def test_problems_refuses_what_cannot_render():
    assert hk.problems(HopperGenome(), "f32") and hk.problems(HopperGenome(), "f64")
    assert hk.problems(HopperGenome(), "f16", Kind(True, False))
    assert hk.problems(HopperGenome(), "f16", Kind(False, False, True))
    assert hk.problems(HopperGenome(bm=128, bn=256, consumers=1), "f16")            # 256 accumulators
    assert hk.problems(HopperGenome(bm=64, consumers=2), "f16")                     # 32 rows a warpgroup
    assert hk.problems(HopperGenome(bm=128, bn=256, stages=5), "f16")               # 247 KB of smem
    assert hk.problems(HopperGenome(bk=32), "f16") and hk.problems(HopperGenome(cluster=4), "f16")
    assert not hk.problems(hk.TUNED, "f16") and not hk.problems(hk.TUNED, "bf16")
    with pytest.raises(ValueError):
        hk.render_hopper(HopperGenome(bm=64, consumers=2), "f16")


def test_labels_name_every_gene_and_parse_back():
    assert hk.TUNED.label() == "h128x256x64-s4-w2-P-c1-g8"
    assert HopperGenome.from_label("h64x64x64-s2-w1-n-c2-g1") == HopperGenome(64, 64, 64, 2, 1, False, 2, 1)
    for genome in hk.all_genomes("f16"):
        assert HopperGenome.from_label(genome.label()) == genome
        assert CudaGenomes.from_label(genome.label()) == genome
        assert CudaGenomes.from_dict(genome.to_dict()) == genome
    classic = ck.CudaGenome(bm=64, bn=256, bk=32, tm=4, tn=4, smem=True, tensor=True, stages=3, mma=16)
    assert CudaGenomes.from_label(classic.label()) == classic and CudaGenomes.from_dict(classic.to_dict()) == classic


@pytest.mark.parametrize("label", ["", "h128x256x64-s4-w2-P-c1", "h128x256x64-s4-w2-X-c1-g8", "h0128x256x64-s4-w2-P-c1-g8",
                                   "b64x256x32-t4x4-s3-SPVT-k16", "h128x256x64-s4-w2-P-c1-g8 ", None])
def test_a_hopper_label_that_does_not_parse_says_so(label):
    with pytest.raises(ValueError, match="is not a Hopper genome label"):
        HopperGenome.from_label(label)


def test_niche_keys_and_claims():
    assert hk.descriptor(hk.TUNED) == "smem+tensor+async+wgmma+tma|128x256x64|w2c1|s4"
    assert hk.descriptor(hk.TUNED) == hk.descriptor(HopperGenome(128, 256, 64, 4, 2, False, 1, 1))
    assert hk.techniques(hk.TUNED) == ("smem", "tensor", "async", "wgmma", "tma")


@pytest.mark.parametrize("precision", hk.PRECISIONS)
def test_mutate_and_repair_stay_valid_and_move_classic_elites_in(precision):
    rng = random.Random(11)
    walk = hk.random_genome(rng, precision)
    seen = {walk}
    for _ in range(300):
        child = hk.mutate(walk, precision, rng)
        assert child != walk and not hk.problems(child, precision)
        seen.add(child)
        walk = child
    assert len(seen) > 100
    for genome in hk.all_genomes(precision)[::7]:
        assert hk.repair(genome, precision, rng) == genome
    for stage in ck.CUDA_STAGES:  # the elites of every classic stage, as when the ladder moves
        for classic in rng.sample(ck.all_genomes(precision, stage, STAGES), 20):
            moved = hk.repair(classic, precision, rng)
            assert isinstance(moved, HopperGenome) and not hk.problems(moved, precision)
            assert isinstance(hk.mutate(classic, precision, rng), HopperGenome)
    big = ck.CudaGenome(bm=128, bn=256, bk=32, tm=4, tn=4, smem=True, tensor=True, stages=3, mma=16)
    assert (hk.repair(big, precision, rng).bm, hk.repair(big, precision, rng).bn) == (128, 256)


def test_the_cuda_family_serves_the_hopper_stage_for_16_bit_problems_only():
    hgemm = family_for("cuda-hgemm-4096")
    assert STAGE in hgemm.stages and STAGE in CudaFamily("llm", precision="bf16").stages
    for problem in ("cuda-sgemm-4096", "cuda-dgemm-4096"):
        assert STAGE not in family_for(problem).stages
    assert STAGE not in CudaFamily("cuda-hgemm-4096", kind=Kind(True, False)).stages
    rng = random.Random(5)
    genome = hgemm.random(rng, STAGE)
    assert isinstance(genome, HopperGenome) and hgemm.is_valid(genome, STAGE) and hgemm.is_valid(genome, None)
    assert not hgemm.is_valid(genome, "cuda-async")
    assert hgemm.techniques(genome) == hk.TECHNIQUES and hgemm.descriptor(genome) == hk.descriptor(genome)
    assert "SM90_TMA_LOAD" in hgemm.render(genome)
    # A classic elite into the Hopper stage, a Hopper genome back into a classic one.
    classic = hgemm.random(rng, "cuda-async")
    assert not hgemm.is_valid(classic, STAGE)
    assert isinstance(hgemm.mutate(classic, rng, STAGE), HopperGenome)
    assert isinstance(hgemm.repair(classic, rng, STAGE), HopperGenome)
    back = hgemm.mutate(genome, rng, "cuda-async")
    assert isinstance(back, ck.CudaGenome) and hgemm.is_valid(back, "cuda-async")
    assert isinstance(hgemm.repair(genome, rng, "cuda-tensor"), ck.CudaGenome)


@pytest.mark.parametrize("precision", hk.PRECISIONS)
def test_sources_use_only_the_cute_stage_headers_and_what_the_genome_says(precision):
    rng = random.Random(3)
    for genome in [hk.TUNED] + rng.sample(hk.all_genomes(precision), 40):
        source = hk.render_hopper(genome, precision)
        assert source.startswith(f"// {genome.label()} (")
        for header in re.findall(r"#include <([^>]+)>", source):
            assert ALLOWED_HEADER.fullmatch(header), header
        assert re.search(r'#include "', source) is None
        assert f'extern "C" void matmul(int m, int n, int k, const Elem *A, const Elem *B, Elem *C)' in source
        assert f"typedef {hk.ELEMENT[precision]} Elem;" in source
        assert f"SM90_64x{genome.bn}x16_{hk.MMA_NAME[precision]}_SS<GMMA::Major::K, GMMA::Major::MN>" in source
        assert "GMMA::Layout_K_SW128_Atom<T>" in source and "GMMA::Layout_MN_SW128_Atom<T>" in source
        assert f"constexpr int SMEM = {hk.shared_bytes(genome)};" in source
        assert "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);" in source
        assert ("__cluster_dims__(2, 1, 1)" in source) == (genome.cluster == 2)
        assert ("SM90_TMA_LOAD_MULTICAST" in source) == (genome.cluster == 2)
        assert ("producer_tail" in source) == (genome.cluster == 2)
        assert ("warpgroup_reg_alloc<232>" in source) == (genome.producer and genome.consumers == 2)
        assert ("ThreadCategory::Producer " in source) == genome.producer
        assert "@" not in source and "//WS" not in source and "//}" not in source
        # What the source checks refuse (bench_node/cuda/README.md): none of it.
        for word in ("printf", "cout", "cerr", "cublas", "cutlass/gemm", "cutlass/epilogue", "cutlass/util", "##",
                     "_Pragma", "__managed__", 'R"('):
            assert word not in source, word
        for name in re.findall(r"^#define (\w+)", source, re.M):
            assert name == "NDEBUG"
        assert source.count("matmul") == 1


# --- nvcc -----------------------------------------------------------------------------------

NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
CUTE = next((pathlib.Path(p) for p in (os.environ.get("HPCREWARD_CUTE_INCLUDE", ""),
                                      "/usr/local/lib/hpcreward/cutlass-4.2.0/include")
             if p and (pathlib.Path(p) / "cute" / "tensor.hpp").is_file()), None)
CUOBJDUMP = next((p for p in (shutil.which("cuobjdump"), "/usr/local/lib/hpcreward/cuda-tools/bin/cuobjdump",
                              "/usr/local/cuda/bin/cuobjdump") if p and os.path.exists(p)), None)
# The GPU rank's shim (bench_node/cuda/iostream_shim.hpp) and export list.
SHIM = ("#pragma once\n#include <istream>\n#include <ostream>\n"
        "namespace std {\nextern istream cin;\nextern ostream cout;\nextern ostream cerr;\nextern ostream clog;\n}\n")
REFUSED_IMPORTS = re.compile(r"^(cu[A-Z]\w*|cublas\w*|cudaDeviceReset|cudaSetDevice|cudaDeviceSetLimit|cudaMallocManaged|"
                             r"cudaEventElapsedTime|dlopen|dlsym|system|fork|printf|puts|fwrite|write|syscall)$")


def compile_genome(tmp_path, name, genome, precision):
    work = tmp_path / name
    (work / "iostream-shim").mkdir(parents=True)
    (work / "iostream-shim" / "iostream").write_text(SHIM)
    (work / "cand.exports").write_text("{ global: matmul; _Z6matmul*; local: *; };\n")
    (work / "cand.cu").write_text(hk.render_hopper(genome, precision))
    command = [NVCC, "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", "-gencode=arch=compute_90a,code=sm_90a",
               "-isystem", str(work / "iostream-shim"), "-isystem", str(CUTE), "-O3", "-Xcompiler", "-ffunction-sections",
               "-Xlinker", f"--gc-sections,--version-script={work / 'cand.exports'}", "-Xlinker", "-z,defs",
               "-o", str(work / "cand.so"), str(work / "cand.cu")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    return work, done


@pytest.mark.skipif(NVCC is None or CUTE is None, reason="needs nvcc and CuTe's headers")
def test_rendered_genomes_compile_as_the_rank_compiles_and_use_wgmma_and_tma(tmp_path):
    valid = hk.all_genomes("f16")
    picked = [("smallest", valid[0], "f16"), ("largest", valid[-1], "f16"),
              ("random", random.Random(17).choice(valid), "f16"), ("tuned-bf16", hk.TUNED, "bf16")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:  # nvcc takes about 1 GB each
        results = list(pool.map(lambda job: (job, *compile_genome(tmp_path, *job)), picked))
    assert {g.cluster for _, g, _ in picked} == {1, 2}, "a multicast genome among them"
    for (name, genome, precision), work, done in results:
        assert done.returncode == 0, f"{name} {genome.label()}: {(done.stdout + done.stderr)[-3000:]}"
        so = work / "cand.so"
        if shutil.which("readelf"):
            sections = subprocess.run(["readelf", "-SW", str(so)], capture_output=True, text=True).stdout
            init = re.search(r"\.init_array\s+INIT_ARRAY\s+\w+\s+\w+\s+(\w+)", sections)
            assert init and int(init[1], 16) == 16, "nvcc's two load-time entries, no constructor of the candidate's"
        if shutil.which("nm"):
            imports = subprocess.run(["nm", "-D", "--undefined-only", str(so)], capture_output=True, text=True).stdout
            names = {line.split()[-1].split("@")[0] for line in imports.splitlines() if line.strip()}
            assert not {n for n in names if REFUSED_IMPORTS.match(n)}, names
            assert {"cudaFuncSetAttribute", "cudaGetDriverEntryPointByVersion"} <= names
        if CUOBJDUMP:
            env = dict(os.environ, NVDISASM_PATH=str(pathlib.Path(CUOBJDUMP).parent),
                       PATH=str(pathlib.Path(CUOBJDUMP).parent) + os.pathsep + os.environ.get("PATH", ""))
            sass = subprocess.run([CUOBJDUMP, "-sass", str(so)], capture_output=True, text=True, env=env).stdout
            assert re.search(rf"\bHGMMA\.64x{genome.bn}x16\.F32", sass), name
            assert re.search(r"\bUTMALDG\.2D\b", sass), name
            assert ("UTMALDG.2D.MULTICAST" in sass) == (genome.cluster == 2), name
            assert re.search(r"\b(LDS|STS)\b", sass), "the fallback kernel's shared tiles"


def test_ci_samples_with_hopper_add_the_cuda_hopper_stage_and_without_leave_the_manifest_as_it_was(tmp_path):
    plain = ck.write_samples(tmp_path / "plain", seed=1)
    count = ck.write_samples(tmp_path / "hopper", seed=1, hopper=True)
    lines = [line.split("\t") for line in (tmp_path / "hopper" / "manifest.tsv").read_text().splitlines()]
    hopper = [line for line in lines if line[2] == STAGE]
    assert count == plain + len(hopper) and len(hopper) >= 10
    assert (tmp_path / "plain" / "manifest.tsv").read_text().splitlines() == [
        "\t".join(line) for line in lines if line[2] != STAGE]
    assert {line[1] for line in hopper} == {"cuda-hgemm-1024", ck.BF16_SAMPLE_PROBLEM}
    assert all(line[3] == "smem,tensor,async,wgmma,tma" for line in hopper)
    assert not any(line[4].endswith("(loop)") for line in hopper), "the classic stages' loop samples stay 16"
    assert any(line[4].endswith("(repaired)") for line in hopper)
    for line in hopper:
        genome = HopperGenome.from_label(line[4].split(" ")[0])
        assert (tmp_path / "hopper" / line[0]).read_text().startswith(f"// {genome.label()} (")
