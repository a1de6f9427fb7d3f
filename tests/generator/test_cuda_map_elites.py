"""The MAP-Elites loop over the CUDA family, against a fake pipeline (no GPU, no nvcc): stage
following on the CUDA ladder, statuses, the archive and the report; every genome the loop's
own random/mutate/repair can produce fits its stage and renders; a C search and a CUDA search
sharing batches. (That such genomes pass nvcc and show their techniques in the SASS is
cuda_checks.generator_cuda; that they are correct and fast needs a GPU: the generator's README.)"""
import json
import random
import re

import pytest

from hpcreward_generator import cuda_kernels as ck
from hpcreward_generator import kernels
from hpcreward_generator.baseline import add_baseline, blas_baseline
from hpcreward_generator.family import CFamily, CudaFamily, family_for
from hpcreward_generator.map_elites import MapElites, run_searches

CUDA_LADDER = ["cuda-naive", "cuda-smem", "cuda-tensor", "cuda-async"]
C_LADDER = ["o0", "o3", "openmp", "avx512", "blocking"]


def source_techniques(source):
    """What a reader of the source (not of the genome) sees: the fake pipeline's detector."""
    if "extern \"C\" void matmul" in source and "SM90_TMA_LOAD" in source:  # the Hopper family's CuTe kernels
        hopper = "cute::gemm(mma" in source and "make_tma_copy" in source
        found = {name: hopper for name in ("smem", "tensor", "async", "wgmma", "tma")}
    elif "extern \"C\" void matmul" in source:
        found = {"smem": "__shared__" in source, "tensor": "mma_sync" in source or "mma.sync" in source,
                 "async": "__pipeline_memcpy_async" in source}
    else:
        found = {"openmp": "#pragma omp" in source, "avx512": "_mm512_" in source,
                 "blocking": bool(re.search(r"(ii|jj|pp) \+= \d+\)", source))}
    return {name for name, on in found.items() if on}


class FakePipeline:
    """Per problem: its ladder (CUDA for cuda-*), one stage up every `per_stage` of its
    candidates (between batches), GFLOPS from a hash of the source's first line; a candidate
    whose techniques do not fit its stage is a constraint_violation, as the pipeline rules.
    Reports every problem's stage after a batch when `report_stages`."""

    def __init__(self, per_stage=32, report_stages=True, cuda_ladder=None):
        self.per_stage = per_stage
        self.cuda_ladder = cuda_ladder or CUDA_LADDER
        self.report_stages = report_stages
        self.scored = {}           # problem -> candidates scored
        self.batches = []          # every batch as sent, with the stage each problem was in
        self.current_stages = {}

    def stage(self, problem):
        ladder = self.cuda_ladder if problem.startswith("cuda-") else C_LADDER
        return ladder[min(self.scored.get(problem, 0) // self.per_stage, len(ladder) - 1)]

    def __call__(self, batch):
        stages = {c["problem"]: self.stage(c["problem"]) for c in batch}
        self.batches.append((stages, batch))
        results = []
        for candidate in batch:
            stage = candidate.get("stage") or stages[candidate["problem"]]
            rules = ck.DEFAULT_STAGES if stage.startswith("cuda-") else kernels.DEFAULT_STAGES
            allows, requires = rules[stage]
            used = source_techniques(candidate["source"])
            ok = used <= set(allows) and set(requires) <= used
            first_line = candidate["source"].splitlines()[0]
            gflops = (sum(map(ord, first_line)) % 89 + 1) * 10.0 if ok else 0.0
            results.append({"id": candidate["id"], "status": "ok" if ok else "constraint_violation",
                            "reward": gflops if ok else -100.0, "gflops": gflops, "stage": stage,
                            "reason": "" if ok else f"{sorted(used)} in {stage}"})
        for candidate in batch:
            self.scored[candidate["problem"]] = self.scored.get(candidate["problem"], 0) + 1
        if self.report_stages:
            self.current_stages = {problem: self.stage(problem) for problem in self.scored}
        return list(reversed(results))  # matched by id, not by position


@pytest.mark.parametrize("problem", ["cuda-dgemm-4096", "cuda-sgemm-4096", "cuda-hgemm-4096"])
def test_the_loop_climbs_the_cuda_ladder_with_every_candidate_fitting_its_stage(problem):
    pipeline = FakePipeline(per_stage=32)
    loop = MapElites(pipeline, seed=3, batch_size=16, problem=problem)
    assert isinstance(loop.family, CudaFamily) and loop.stage == "cuda-naive"
    report = loop.run(160)
    assert [h["asked_stage"] for h in loop.history][::32] == CUDA_LADDER + ["cuda-async"]
    assert all(h["status"] == "ok" for h in loop.history), "made for the stage the pipeline reported"
    assert all(c["id"].startswith("cuda-s3-b") for _, batch in pipeline.batches for c in batch)
    assert all(c["problem"] == problem and "stage" not in c for _, batch in pipeline.batches for c in batch)
    assert {stage for stage, _ in loop.archive.niches} == set(CUDA_LADDER), "an archive per stage"
    for (stage, niche), elite in loop.archive.niches.items():
        assert niche == ck.descriptor(elite.genome) and ck.is_valid(elite.genome, loop.family.precision, stage)
    assert report["language"] == "cuda" and report["problem"] == problem and report["stage"] == "cuda-async"
    assert report["best"]["gflops"] == max(h["gflops"] for h in loop.history)
    assert report["best"]["source"].startswith(f"// {report['best']['label']} (")
    assert len(report["archive"]) == len(loop.archive) and len(report["gflops_over_evaluations"]) == 160
    bests = [row[2] for row in report["gflops_over_evaluations"]]
    assert bests == sorted(bests), "best-so-far never falls"
    json.dumps(report)


def test_an_hgemm_search_climbs_into_the_hopper_stage_and_searches_the_hopper_family():
    ladder = CUDA_LADDER + ["cuda-hopper"]
    pipeline = FakePipeline(per_stage=32, cuda_ladder=ladder)
    loop = MapElites(pipeline, seed=6, batch_size=16, problem="cuda-hgemm-4096")
    report = loop.run(224)
    assert [h["asked_stage"] for h in loop.history][::32] == ladder + ["cuda-hopper"] * 2
    assert all(h["status"] == "ok" for h in loop.history), "made for the stage the pipeline reported"
    hopper = [h for h in loop.history if h["stage"] == "cuda-hopper"]
    assert len(hopper) == 96 and all(h["genome"].startswith("h") for h in hopper)
    assert len({h["genome"] for h in hopper}) == 96, "no genome scored twice in the stage"
    niches = [(stage, niche) for stage, niche in loop.archive.niches if stage == "cuda-hopper"]
    assert len(niches) > 10 and all(niche.startswith("smem+tensor+async+wgmma+tma|") for _, niche in niches)
    for (stage, niche), elite in loop.archive.niches.items():
        assert loop.family.is_valid(elite.genome, stage) and niche == loop.family.descriptor(elite.genome)
    assert report["stage"] == "cuda-hopper"
    # The report reads back: every archive genome from its label and its fields.
    restored = MapElites(FakePipeline(per_stage=32, cuda_ladder=ladder), seed=7, batch_size=16, problem="cuda-hgemm-4096")
    restored.restore(json.loads(json.dumps(report)))
    assert restored.stage == "cuda-hopper" and restored.archive.niches.keys() == loop.archive.niches.keys()


def test_following_results_alone_loses_one_batch_per_stage_change():
    pipeline = FakePipeline(per_stage=32, report_stages=False)
    loop = MapElites(pipeline, seed=4, batch_size=16, problem="cuda-sgemm-4096")
    loop.run(160)
    statuses = [h["status"] for h in loop.history]
    assert statuses.count("constraint_violation") == 16 * 3, "the batch after each of the 3 advances"
    assert loop.stage == "cuda-async"
    for h in loop.history:
        assert (h["status"] == "ok") == (h["stage"] == h["asked_stage"]), h


def test_a_pinned_cuda_search_names_its_stage_and_stays():
    pipeline = FakePipeline(per_stage=8)
    loop = MapElites(pipeline, seed=5, batch_size=8, problem="cuda-hgemm-1024", stage="cuda-tensor", pin=True)
    loop.run(32)
    assert all(c["stage"] == "cuda-tensor" for _, batch in pipeline.batches for c in batch)
    assert loop.stage == "cuda-tensor" and all(h["status"] == "ok" for h in loop.history)
    assert all("wmma::mma_sync" in c["source"] or "mma.sync" in c["source"] for _, batch in pipeline.batches for c in batch)


def test_same_seed_same_cuda_run():
    def run(seed):
        loop = MapElites(FakePipeline(per_stage=24), seed=seed, batch_size=8, problem="cuda-sgemm-4096")
        loop.run(96)
        return [(h["genome"], h["stage"], h["gflops"]) for h in loop.history]
    assert run(11) == run(11)
    assert run(11) != run(12)


def test_no_cuda_genome_is_scored_twice_in_a_stage():
    loop = MapElites(FakePipeline(per_stage=10_000), seed=2, batch_size=16, problem="cuda-dgemm-1024",
                     random_fraction=0.0)
    loop.run(96)
    labels = [h["genome"] for h in loop.history]
    assert len(labels) == len(set(labels)) and len(loop.archive) >= 10


@pytest.mark.parametrize("precision", ck.PRECISIONS)
def test_what_random_mutate_and_repair_produce_fits_each_stage_and_renders(precision):
    """Every genome the loop can propose in a stage: random ones, chains of mutations, and
    genomes of every other stage (elites when the ladder moves) repaired into it."""
    stages = ck.load_cuda_ladder()
    rng = random.Random(2024)
    for stage in ck.CUDA_STAGES + ("cuda-open",):
        genomes = [ck.random_genome(rng, precision, stage, stages) for _ in range(20)]
        walk = genomes[0]
        for _ in range(200):
            child = ck.mutate(walk, precision, stage, rng, stages)
            assert child != walk, "a mutation changes the genome"
            genomes.append(child)
            walk = child
        for other in ck.CUDA_STAGES:
            for genome in rng.sample(ck.all_genomes(precision, other, stages), 15):
                genomes.append(ck.repair(genome, precision, stage, rng, stages))
        for genome in genomes:
            assert ck.is_valid(genome, precision, stage, stages), (stage, genome)
            allows, requires = stages[stage]
            used = set(ck.techniques(genome))
            assert used <= set(allows) and set(requires) <= used
            assert source_techniques(ck.render_cuda(genome, precision)) == used, genome


def test_repair_keeps_a_valid_genome_and_changes_few_genes():
    stages = ck.load_cuda_ladder()
    rng = random.Random(9)
    for stage in ck.CUDA_STAGES:
        for genome in rng.sample(ck.all_genomes("f32", stage, stages), 30):
            assert ck.repair(genome, "f32", stage, rng, stages) == genome
    # An smem genome into cuda-naive: only the staging genes go.
    staged = ck.CudaGenome(bm=64, bn=64, bk=32, tm=4, tn=4, smem=True, pad=True, vec=True)
    assert ck.repair(staged, "f64", "cuda-naive", rng, stages) == ck.CudaGenome(bm=64, bn=64, tm=4, tn=4)
    # Into cuda-tensor: tensor on; a thread tile that splits no warp of fragments is brought near.
    tensor = ck.repair(staged, "f16", "cuda-tensor", rng, stages)
    assert tensor.tensor and tensor.smem and ck.is_valid(tensor, "f16", "cuda-tensor", stages)
    assert (tensor.bm, tensor.bn) == (64, 64)
    # Into cuda-async: a cp.async ring of 2 or 3 slices.
    assert ck.repair(staged, "f32", "cuda-async", rng, stages).stages in (2, 3)


def test_cuda_niche_key():
    genome = ck.CudaGenome(bm=64, bn=128, bk=32, tm=2, tn=4, smem=True, tensor=True, stages=3, pad=True)
    assert ck.descriptor(genome) == "smem+tensor+async|64x128x32|2x4|s3"
    assert ck.descriptor(ck.CudaGenome(bm=32, bn=64, tm=2, tn=2)) == "plain|32x64x16|2x2|s1"
    assert ck.descriptor(genome) == ck.descriptor(ck.CudaGenome(**{**genome.to_dict(), "pad": False, "vec": True}))


def test_family_for_problem():
    assert isinstance(family_for("dgemm-256"), CFamily)
    assert family_for("cuda-hgemm-4096").precision == "f16"
    assert family_for("cuda-sgemm-4096").precision == "f32"
    # the ladder and the stages outside it a search may be pinned to; cuda-hopper (wgmma, tma)
    # only for 16-bit problems: wgmma has no fp64 form and its fp32 one takes no MN-major B
    outside = {"cuda-open", "cuda-cute", "cuda-cutlass"}
    assert set(family_for("cuda-dgemm-1024").stages) == set(CUDA_LADDER) | outside
    assert set(family_for("cuda-sgemm-1024").stages) == set(CUDA_LADDER) | outside
    assert set(family_for("cuda-hgemm-1024").stages) == set(CUDA_LADDER) | outside | {"cuda-hopper"}
    assert not any(stage.startswith("cuda-") for stage in family_for("sgemm-512").stages)
    with pytest.raises(ValueError):
        family_for("cuda-zgemm-64")


def test_a_c_and_a_cuda_search_share_batches_and_each_follows_its_own_ladder():
    pipeline = FakePipeline(per_stage=32)
    c = MapElites(pipeline, seed=1, batch_size=16, problem="dgemm-256")
    cuda = MapElites(pipeline, seed=1, batch_size=8, problem="cuda-sgemm-4096")
    run_searches([(c, 64), (cuda, 96)], pipeline)
    assert c.evaluations == 64 and cuda.evaluations == 96
    # Four rounds with both searches' candidates in one batch, then the CUDA search alone.
    sizes = [sorted({cand["problem"] for cand in batch}) for _, batch in pipeline.batches]
    assert sizes[:4] == [["cuda-sgemm-4096", "dgemm-256"]] * 4
    assert sizes[4:] == [["cuda-sgemm-4096"]] * 8
    ids = [cand["id"] for _, batch in pipeline.batches for cand in batch]
    assert len(ids) == len(set(ids)), "ids unique within a batch and the run"
    assert c.stage == "openmp" and cuda.stage == "cuda-async"  # 64 and 96 scored, 32 a stage
    assert all(h["status"] == "ok" for h in c.history + cuda.history)
    assert all(cand["source"].startswith("// hpcreward_generator") for _, batch in pipeline.batches
               for cand in batch if cand["problem"] == "dgemm-256")
    assert c.report()["language"] == "c" and cuda.report()["language"] == "cuda"


HOSTS = [{"rank": 1, "kind": "cpu", "peak_gflops_f64": 50.0, "peak_gflops_f32": 100.0},
         {"rank": 2, "kind": "cpu", "peak_gflops_f64": 60.0, "peak_gflops_f32": 110.0},
         {"rank": 3, "kind": "gpu", "peak_gflops_f64": 56857.0, "peak_gflops_f32": 362958.0,
          "peak_gflops_f16": 641626.0, "peak_gflops_bf16": 650000.0, "sgemm_fp32_gflops": 50000.0}]


def test_the_baseline_is_blas_on_the_ranks_of_the_problems_kind_and_precision():
    assert blas_baseline(HOSTS, "c", "f64") == {"blas": "OpenBLAS", "blas_peak_gflops_f64": 60.0}
    assert blas_baseline(HOSTS, "c", "f32") == {"blas": "OpenBLAS", "blas_peak_gflops_f32": 110.0}
    assert blas_baseline(HOSTS, "cuda", "f32") == {"blas": "cuBLAS", "blas_peak_gflops_f32": 362958.0}
    assert blas_baseline(HOSTS, "cuda", "f16") == {"blas": "cuBLAS", "blas_peak_gflops_f16": 641626.0}
    assert blas_baseline(HOSTS, "cuda", "bf16") == {"blas": "cuBLAS", "blas_peak_gflops_bf16": 650000.0}
    assert blas_baseline(HOSTS[:2], "cuda", "f64") == {}
    assert blas_baseline([{"peak_gflops_f64": 9.0}], "c", "f64")["blas_peak_gflops_f64"] == 9.0  # no kind: cpu
    report = add_baseline({"problem": "cuda-hgemm-4096", "language": "cuda", "best": {"gflops": 64162.6}}, HOSTS, "f16")
    assert report["best_fraction_of_blas"] == pytest.approx(0.1) and report["hosts"] == HOSTS
    assert "blas" not in add_baseline({"problem": "cuda-hgemm-4096", "language": "cuda", "best": None}, HOSTS[:2], "f16")
    # a catalog's problem: its language and precision come from the search, never from its name
    bf16 = add_baseline({"problem": "cuda-bf16-nt-4096", "language": "cuda", "best": {"gflops": 65000.0}}, HOSTS, "bf16")
    assert bf16["blas_peak_gflops_bf16"] == 650000.0 and bf16["best_fraction_of_blas"] == pytest.approx(0.1)
    kb = add_baseline({"problem": "kb1-3-batched", "language": "cuda", "best": {"gflops": 36295.8}}, HOSTS, "f32")
    assert kb["blas"] == "cuBLAS" and kb["best_fraction_of_blas"] == pytest.approx(0.1)
    # sgemm: the ceiling is TF32 cuBLAS; the fraction of plain cuBLAS SGEMM is reported beside it
    sgemm = add_baseline({"problem": "cuda-sgemm-4096", "language": "cuda", "best": {"gflops": 25000.0}}, HOSTS, "f32")
    assert sgemm["cublas_sgemm_fp32_gflops"] == 50000.0
    assert sgemm["best_fraction_of_cublas_sgemm_fp32"] == pytest.approx(0.5)
    assert "cublas_sgemm_fp32_gflops" not in add_baseline({"problem": "cuda-hgemm-4096", "language": "cuda", "best": None},
                                                          HOSTS, "f16")
    assert "cublas_sgemm_fp32_gflops" not in add_baseline({"problem": "sgemm-512", "language": "c", "best": None}, HOSTS, "f32")
