"""A stopped search goes on from its report: genome labels parse back, MapElites.restore() takes
a report's archive, best, counts and history, the command line's --resume (against the stand-in
served coordinator), the refusals (another problem, a corrupt report, a reused seed), and one
generator per report."""
import copy
import json
import os
import pathlib
import random
import re
import signal
import subprocess
import sys
import time

import pytest

from hpcreward_generator import cuda_kernels as ck
from hpcreward_generator import kernels
from hpcreward_generator.family import family_for
from hpcreward_generator.map_elites import MapElites, run_searches
from hpcreward_generator.report_lock import hold_report
from test_cuda_map_elites import FakePipeline  # deterministic: GFLOPS from each source's first line

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


# -- MapElites.restore --------------------------------------------------------------------------

def stopped_search(problem, evaluations=64, seed=3):
    """A search stopped after `evaluations`, its pipeline (to go on with) and its report as read
    back from the JSON file the command line writes."""
    pipeline = FakePipeline(per_stage=32)
    search = MapElites(pipeline, seed=seed, batch_size=16, problem=problem)
    search.run(evaluations)
    return search, pipeline, json.loads(json.dumps(search.report()))


def elites(search):
    return {key: (e.genome, e.gflops, e.candidate_id, e.evaluation) for key, e in search.archive.niches.items()}


@pytest.mark.parametrize("problem", PROBLEMS)
def test_a_restored_search_holds_what_the_stopped_one_had(problem):
    stopped, _, report = stopped_search(problem)
    restored = MapElites(None, seed=65, batch_size=16, problem=problem)
    restored.restore(report)
    assert elites(restored) == elites(stopped) and len(restored.archive) > 3
    assert restored.best == stopped.best and restored.stage == stopped.stage
    assert (restored.evaluations, restored.batches) == (64, 4)
    assert {(stage, e.genome) for (stage, _), e in stopped.archive.niches.items()} <= restored.seen
    again = restored.report()
    assert again["earlier_runs"] == [{"seed": 3, "evaluations": 64, "batches": 4}] and again["seed"] == 65
    assert {k: v for k, v in again.items() if k not in ("seed", "earlier_runs")} == \
        {k: v for k, v in report.items() if k not in ("seed", "earlier_runs")}


@pytest.mark.parametrize("problem", ["dgemm-256", "cuda-sgemm-4096"])
def test_a_restored_search_goes_on_to_the_total_under_new_ids(problem):
    stopped, pipeline, report = stopped_search(problem)
    old_ids = {c["id"] for _, batch in pipeline.batches for c in batch}
    restored = MapElites(pipeline, seed=65, batch_size=16, problem=problem)
    restored.restore(report)
    sent = len(pipeline.batches)
    run_searches([(restored, 100)], pipeline)
    assert restored.evaluations == 100 and len(restored.history) == 100
    new = [c for _, batch in pipeline.batches[sent:] for c in batch]
    assert len(new) == 36
    prefix = "cuda-" if problem.startswith("cuda-") else ""
    assert [c["id"] for c in new[:16]] == [f"{prefix}s65-b0005-{i:02d}" for i in range(16)]
    assert all(re.fullmatch(rf"{prefix}s65-b000[5-7]-\d\d", c["id"]) for c in new)
    assert not old_ids & {c["id"] for c in new}
    # The report continues the stopped one's: its rows, its archive (elites only ever replaced by better).
    went_on = restored.report()
    assert went_on["gflops_over_evaluations"][:64] == report["gflops_over_evaluations"]
    assert [row[0] for row in went_on["gflops_over_evaluations"]] == list(range(1, 101))
    for key, (_, gflops, _, _) in elites(stopped).items():
        assert restored.archive.niches[key].gflops >= gflops
    assert went_on["best"]["gflops"] >= report["best"]["gflops"]
    # Made for the stage the pipeline stands at, from the restored elites: every candidate fits.
    assert all(h["status"] == "ok" for h in restored.history[64:])


def test_a_restored_search_is_reproducible_from_its_new_seed():
    def went_on(seed):
        _, pipeline, report = stopped_search("cuda-hgemm-4096")
        search = MapElites(pipeline, seed=seed, batch_size=16, problem="cuda-hgemm-4096")
        search.restore(report)
        run_searches([(search, 96)], pipeline)
        return [(h["genome"], h["gflops"]) for h in search.history[64:]]
    assert went_on(70) == went_on(70)
    assert went_on(70) != went_on(71)


def test_a_report_with_labels_alone_restores_the_same_archive():
    stopped, _, report = stopped_search("cuda-dgemm-4096")
    for entry in report["archive"]:
        del entry["genome_fields"]
    restored = MapElites(None, seed=65, problem="cuda-dgemm-4096")
    restored.restore(report)
    assert elites(restored) == elites(stopped)


def test_a_pinned_search_keeps_its_stage():
    _, _, report = stopped_search("dgemm-256")
    assert report["stage"] == "openmp"
    pinned = MapElites(None, seed=65, problem="dgemm-256", stage="o3", pin=True)
    pinned.restore(report)
    assert pinned.stage == "o3" and pinned.evaluations == 64


def set_genes(entry, **genes):
    """Changes an archive entry's genome, fields and label alike."""
    entry["genome_fields"].update(genes)
    entry["genome"] = kernels.Genome(**entry["genome_fields"]).label()


def broken(report, change):
    report = copy.deepcopy(report)
    change(report)
    return report


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(problem="sgemm-256"),
     "the report of a c search of sgemm-256, not of this c search of dgemm-256"),
    (lambda r: r.update(language="cuda"), "not of this c search"),
    (lambda r: r.update(seed=65), "seed 65 is one this search ran with before"),
    (lambda r: r.update(earlier_runs=[{"seed": 65, "evaluations": 16, "batches": 1}]), "seed 65 is one"),
    (lambda r: r["archive"][0].update(niche="plain|ijk|999x0x0"), "niche 'plain|ijk|999x0x0', but"),
    (lambda r: set_genes(r["archive"][0], unroll=3), "cannot be rendered for dgemm-256"),
    (lambda r: r["archive"][0]["genome_fields"].pop("jam"), "are not the fields of a Genome"),
    (lambda r: r["archive"][0]["genome_fields"].update(colour="red"), "are not the fields of a Genome"),
    (lambda r: r["archive"][0].update(genome="ijk-t0x0x0-u1-j1-plain"), "its genome fields are"),
    (lambda r: r["archive"].append(dict(r["archive"][0])), "holds a niche twice"),
    (lambda r: r.update(evaluations=70), "does not hold evaluations 1 to 70"),
    (lambda r: r["gflops_over_evaluations"].pop(3), "does not hold evaluations 1 to 64"),
    (lambda r: r["gflops_over_evaluations"][0].pop(), "not [evaluation, gflops, best, stage, status]"),
    (lambda r: r.update(batches="four"), "batches is 'four', not a count"),
    (lambda r: r["best"].pop("source"), "its best lacks source"),
    (lambda r: r.pop("archive"), "not a complete generator report"),
])
def test_a_report_that_cannot_be_gone_on_from_is_refused_saying_why(change, message):
    _, _, report = stopped_search("dgemm-256")
    search = MapElites(None, seed=65, problem="dgemm-256")
    with pytest.raises(ValueError, match=re.escape(message)):
        search.restore(broken(report, change))
    assert search.evaluations == 0 and len(search.archive) == 0 and search.best is None, "left as it was"


def test_a_c_report_is_refused_by_a_cuda_search():
    _, _, report = stopped_search("dgemm-256")
    with pytest.raises(ValueError, match="the report of a c search of dgemm-256, not of this cuda search"):
        MapElites(None, seed=65, problem="cuda-sgemm-4096").restore(report)


# -- the command line's --resume, against the stand-in served coordinator ------------------------

REPO = pathlib.Path(__file__).resolve().parents[2]
FAKE_COORDINATOR = pathlib.Path(__file__).resolve().parent / "fake_served_coordinator.py"


@pytest.fixture
def served(tmp_path):
    """The run directory of a stand-in served pipeline (fake_served_coordinator.py), stopped after the test."""
    run = tmp_path / "run"
    coordinator = subprocess.Popen([sys.executable, str(FAKE_COORDINATOR), "--out", str(run)])
    yield run
    coordinator.send_signal(signal.SIGTERM)
    coordinator.wait(timeout=60)


def generator(*args):
    env = dict(os.environ, PYTHONPATH=f"{REPO / 'train_bridge' / 'generator'}:{REPO / 'train_bridge' / 'python'}")
    return subprocess.run([sys.executable, "-m", "hpcreward_generator", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=300)


def sent_batches(run):
    return [json.loads(line)["candidates"] for line in (run / "fake-batches.jsonl").read_text().splitlines()]


def test_resume_goes_on_from_the_report_until_the_total(served):
    report = served / "generator.json"
    first = generator("--rendezvous", served, "--evaluations", 32, "--seed", 1, "--out", report)
    assert first.returncode == 0, first.stderr
    stopped = json.loads(report.read_text())
    went_on = generator("--rendezvous", served, "--evaluations", 48, "--seed", 33, "--out", report, "--resume")
    assert went_on.returncode == 0, went_on.stderr
    assert f"dgemm-256: goes on from {report}: 32 evaluations, 2 batches" in went_on.stdout
    batches = sent_batches(served)
    assert len(batches) == 3 and [c["id"] for c in batches[2]] == [f"s33-b0003-{i:02d}" for i in range(16)]
    final = json.loads(report.read_text())
    assert (final["evaluations"], final["batches"], final["seed"]) == (48, 3, 33)
    assert final["earlier_runs"] == [{"seed": 1, "evaluations": 32, "batches": 2}]
    assert final["gflops_over_evaluations"][:32] == stopped["gflops_over_evaluations"]
    # The stand-in moves dgemm-256 a stage up every 16 candidates: the search went on in openmp.
    assert all("#pragma omp" in c["source"] and "_mm512_" not in c["source"] for c in batches[2])
    # At its total already: nothing sent, the report left as it was.
    done = generator("--rendezvous", served, "--evaluations", 40, "--seed", 49, "--out", report, "--resume")
    assert done.returncode == 0, done.stderr
    assert f"dgemm-256: {report} holds 48 evaluations, of 40 asked for: nothing to do" in done.stdout
    assert len(sent_batches(served)) == 3 and json.loads(report.read_text()) == final


def test_resume_without_a_report_starts_a_new_search(served):
    report = served / "generator-cuda.json"
    result = generator("--rendezvous", served, "--problem", "cuda-sgemm-4096", "--evaluations", 16, "--seed", 5,
                       "--out", report, "--resume")
    assert result.returncode == 0, result.stderr
    assert f"cuda-sgemm-4096: no report {report} (stopped before its first batch came back): a new search" \
        in result.stdout
    final = json.loads(report.read_text())
    assert (final["evaluations"], final["earlier_runs"]) == (16, [])


def write_report(path, problem, seed=1):
    _, _, report = stopped_search(problem, evaluations=32, seed=seed)
    path.write_text(json.dumps(report))


@pytest.mark.parametrize("setup, options, message", [
    (lambda d: (d / "r.json").write_text('{"problem": "dgemm-256", "arch'), [],
     "cannot read {d}/r.json as a report (Unterminated string"),
    (lambda d: (d / "r.json").write_bytes(b"\xff\xfe"), [], "cannot read {d}/r.json as a report"),
    (lambda d: (d / "r.json").mkdir(), [], "cannot read {d}/r.json as a report"),
    (lambda d: write_report(d / "r.json", "sgemm-256"), [],
     "{d}/r.json: the report of a c search of sgemm-256, not of this c search of dgemm-256 "
     "(or move it away to start a new search)"),
    (lambda d: write_report(d / "r.json", "dgemm-256", seed=9), [],
     "{d}/r.json: seed 9 is one this search ran with before"),
    # The C report where the CUDA search's is (--cuda-out).
    (lambda d: write_report(d / "r.json", "dgemm-256"),
     ["--cuda-problem", "cuda-sgemm-4096", "--cuda-out", "{d}/r.json"],
     "{d}/r.json: the report of a c search of dgemm-256, not of this cuda search of cuda-sgemm-4096"),
])
def test_resume_stops_with_status_2_on_a_report_it_cannot_go_on_from(tmp_path, setup, options, message):
    setup(tmp_path)
    out = tmp_path / "r.json" if not options else tmp_path / "c.json"
    # No pipeline at that rendezvous: the report is refused before the generator waits for one.
    result = generator("--rendezvous", tmp_path / "nowhere", "--seed", 9, "--out", out, "--resume",
                       *[option.format(d=tmp_path) for option in options])
    assert result.returncode == 2, result.stdout + result.stderr
    assert "hpcreward_generator: error: --resume: " + message.format(d=tmp_path) in result.stderr


def test_resume_needs_the_report_file():
    result = generator("--resume", "--evaluations", 16)
    assert result.returncode == 2 and "--resume goes on from each search's report: give --out" in result.stderr


# -- one generator per report ------------------------------------------------------------------------

def test_a_second_generator_on_a_report_in_use_stops_with_status_2_naming_the_first(tmp_path):
    # The first generator waits for a pipeline that never comes, holding its report meanwhile.
    report = tmp_path / "generator.json"
    env = dict(os.environ, PYTHONPATH=f"{REPO / 'train_bridge' / 'generator'}:{REPO / 'train_bridge' / 'python'}")
    first = subprocess.Popen([sys.executable, "-m", "hpcreward_generator", "--rendezvous", str(tmp_path / "nowhere"),
                              "--out", str(report)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        lock = pathlib.Path(f"{report}.lock")
        deadline = time.monotonic() + 60
        while not (lock.exists() and lock.read_text().strip() == str(first.pid)):
            assert time.monotonic() < deadline and first.poll() is None, "the first generator never took its report"
            time.sleep(0.1)
        second = generator("--rendezvous", tmp_path / "nowhere", "--out", report, "--resume", "--seed", 7)
        assert second.returncode == 2, second.stdout + second.stderr
        assert (f"hpcreward_generator: error: another generator (pid {first.pid}) is writing {report}: stop it "
                f"(kill -TERM {first.pid}) before starting one on this report, or give another --out") in second.stderr
    finally:
        first.kill()
        first.wait()
    # Its lock went with it, however it ended: the report is free again.
    held = hold_report(str(report))
    assert held is not None and lock.read_text() == f"{os.getpid()}\n"
    os.close(held)


def test_one_report_for_both_searches_is_refused():
    result = generator("--cuda-problem", "cuda-sgemm-4096", "--out", "/tmp/r.json", "--cuda-out", "/tmp/r.json")
    assert result.returncode == 2 and "--out and --cuda-out name one report" in result.stderr
