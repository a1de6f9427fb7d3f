"""techniques(genome) agrees with what the real pipeline detects: one jobs/local.sh run (file
mode) of a handful of rendered candidates, each in an explicit stage; then the MAP-Elites loop
for two batches through the file scorer."""
import json
import os
import pathlib
import random
import subprocess


from hpcreward_generator import kernels
from hpcreward_generator.baseline import blas_baseline
from hpcreward_generator.family import family_for, smallest_dimension
from hpcreward_generator.file_scorer import FileScorer, read_log
from hpcreward_generator.kernels import Genome
from hpcreward_generator.map_elites import MapElites

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin")))
BENCH_OPTIONS = ["--", "--warmup-s", "0.02", "--time-cap-s", "0.1"]

def host_has_avx512():
    with open("/proc/cpuinfo") as info:
        return "avx512f" in info.read()


CASES = [
    ("o0", Genome("ijk")),
    ("o3", Genome("ikj", unroll=4, jam=2, restrict=True)),
    ("openmp", Genome("kij", unroll=2, openmp=True)),
    ("openmp", Genome("jik", openmp=True, restrict=True)),
    ("avx512", Genome("ikj", unroll=2, jam=4, avx512=True, restrict=True)),
    ("avx512", Genome("kij", unroll=4, avx512=True, openmp=True)),
    ("blocking", Genome("ikj", ti=32, tk=128, unroll=2, jam=2, avx512=True, openmp=True, restrict=True)),
    ("blocking", Genome("ikj", tk=128, unroll=4, jam=4)),            # only the jammed loop is tiled
    ("o3", Genome("ikj", tk=256, unroll=4)),                          # one 256 tile over 256: not blocking
    ("blocking", Genome("kij", tj=64, unroll=8, openmp=True)),        # only the unrolled loop is tiled
    ("blocking", Genome("jki", ti=64, tj=16, tk=32, pack=True, openmp=True)),
    ("blocking", Genome("ikj", ti=16, tj=128, tk=64, pack=True, avx512=True, unroll=4)),
    ("blocking", Genome("ikj", ti=32, tj=128, tk=64, jam=4, rows=4, avx512=True, restrict=True)),
    ("o3", Genome("ikj", rows=4, jam=2, restrict=True)),                # a step-4 row loop is not a tile
    ("avx512", Genome("ikj", rows=2, jam=4, avx512=True, openmp=True)),
]


def test_the_pipeline_detects_what_techniques_says(tmp_path):
    cases = [(stage, g) for stage, g in CASES if host_has_avx512() or stage in ("o0", "o3", "openmp")]
    lines = []
    for index, (stage, genome) in enumerate(cases):
        assert kernels.is_valid(genome, stage), (stage, genome)
        lines.append({"id": f"g{index}", "stage": stage, "batch_id": "generator", "problem": "dgemm-256",
                      "source": kernels.render(genome)})
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "run"
    env = dict(os.environ, HPCREWARD_BIN=str(BIN))
    result = subprocess.run([str(REPO / "jobs" / "local.sh"), "--candidates", str(candidates), "--np", "2",
                             "--out", str(out), *BENCH_OPTIONS], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    rows = {row["candidate_id"]: row for row in read_log(out / "rewards.h5")[0]}
    wrong = []
    for index, (stage, genome) in enumerate(cases):
        row = rows[f"g{index}"]
        want = "+".join(kernels.techniques(genome)) or "plain"
        tiles = "x".join(str(genome.tile(letter)) for letter in genome.loop_order if genome.tile(letter))
        if (row["status"], row["stage"], row["techniques"], row["tile_sizes"]) != ("ok", stage, want, tiles):
            wrong.append(f"{genome.label()} in {stage}: {row['status']} {row['techniques']!r} {row['tile_sizes']!r} "
                         f"(want ok {want!r} {tiles!r}) {row['reason'][:200]}")
    assert not wrong, "\n".join(wrong)


def test_the_loop_through_the_file_scorer_follows_the_pipeline(tmp_path):
    scorer = FileScorer(work_dir=tmp_path / "gen", np=2, seed=5, bin_dir=str(BIN), bench_options=BENCH_OPTIONS[1:])
    loop = MapElites(scorer, seed=5, batch_size=6)
    report = loop.run(12)
    assert report["evaluations"] == 12 and scorer.batches == 2
    assert all(h["status"] == "ok" and h["stage"] == "o0" for h in loop.history), loop.history
    assert report["best"]["gflops"] > 0 and blas_baseline(scorer.hosts, "c", "f64")["blas_peak_gflops_f64"] > 0
    rows, _, _ = read_log(tmp_path / "gen" / "run" / "rewards.h5")
    assert sorted(r["candidate_id"] for r in rows) == sorted(h["id"] for h in loop.history)


def test_a_resumed_main_job_goes_on_with_its_search_under_new_ids(tmp_path):
    out = tmp_path / "run"
    env = dict(os.environ, HPCREWARD_BIN=str(BIN))
    for evaluations, extra in (("4", []), ("8", ["--resume"])):  # 8 in all: 4 more
        result = subprocess.run([str(REPO / "jobs" / "local.sh"), "--evaluations", evaluations, "--np", "1",
                                 "--out", str(out)] + extra + BENCH_OPTIONS,
                                capture_output=True, text=True, env=env, timeout=300)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    rows, _, _ = read_log(out / "rewards.h5")
    ids = [r["candidate_id"] for r in rows]
    assert len(ids) == 8 and len(set(ids)) == 8, ids
    # The second seed is 1 + the 4 rows logged; the search's second batch.
    assert sorted(ids) == [f"s1-b0001-{i:02d}" for i in range(4)] + [f"s5-b0002-{i:02d}" for i in range(4)], ids
    report = json.loads((out / "generator.json").read_text())
    assert (report["evaluations"], report["earlier_runs"]) == (8, [{"seed": 1, "evaluations": 4, "batches": 1}])


def test_on_a_problem_smaller_than_the_default_tiles_blocking_is_what_the_ranks_detect(tmp_path):
    """A catalog problem of 128s (8 products of 128^3): a 128 tile splits nothing there, so the
    family neither counts it as blocking nor offers it to the blocking stage; the ranks agree."""
    listing = subprocess.run([str(BIN / "hpcreward-problems"), "--problems", "gemm-kinds", "--json"],
                             capture_output=True, text=True, check=True)
    catalog = json.loads(listing.stdout)["problems"]
    family = family_for("dgemm-batched-8x128", catalog=catalog)
    assert family.smallest == 128 and smallest_dimension({"nominal": "3*70x45x37"}) == 37
    rng = random.Random(7)
    drawn = [family.random(rng, "blocking") for _ in range(200)]
    drawn += [family.mutate(genome, rng, "blocking") for genome in drawn]
    assert all(family.is_valid(g, "blocking") and any(0 < g.tile(x) < 128 for x in "ijk") for g in drawn)
    cases = [("o3", Genome("ikj", tk=128, unroll=4)),                 # whole-problem tile: not blocking
             ("blocking", Genome("ikj", tk=64, unroll=4)),
             ("blocking", next(g for g in drawn if g.openmp and not g.avx512))]
    lines = []
    for index, (stage, genome) in enumerate(cases):
        assert family.is_valid(genome, stage), (stage, genome)
        lines.append({"id": f"g{index}", "stage": stage, "batch_id": "generator", "problem": "dgemm-batched-8x128",
                      "source": family.render(genome)})
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = subprocess.run([str(REPO / "jobs" / "local.sh"), "--candidates", str(candidates), "--np", "2",
                             "--problems", "gemm-kinds", "--out", str(tmp_path / "run"), *BENCH_OPTIONS],
                            capture_output=True, text=True, env=dict(os.environ, HPCREWARD_BIN=str(BIN)), timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    rows = {row["candidate_id"]: row for row in read_log(tmp_path / "run" / "rewards.h5")[0]}
    got = [(rows[f"g{i}"]["status"], rows[f"g{i}"]["techniques"]) for i in range(len(cases))]
    # The blocking stage compiles with -mavx512f: a host without AVX-512 skips it, and lines
    # naming it are refused with that reason (docs/guide.md) before any detection.
    runs = lambda stage: stage != "blocking" or host_has_avx512()
    assert got == [("ok", "+".join(family.techniques(g)) or "plain") if runs(stage) else ("constraint_violation", "")
                   for stage, g in cases], got
    for index, (stage, _) in enumerate(cases):
        assert runs(stage) or "AVX-512" in rows[f"g{index}"]["reason"], rows[f"g{index}"]["reason"]
