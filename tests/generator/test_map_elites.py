"""MAP-Elites against a fake scorer: archive updates, stage following, validity, determinism."""
import json
import random
import re

from hpcreward_generator import kernels
from hpcreward_generator.kernels import Genome, descriptor
from hpcreward_generator.map_elites import Archive, MapElites

LADDER = ["o0", "o3", "openmp", "avx512", "blocking"]


def label_of(source):
    return re.search(r"hpcreward_generator: (\S+)", source).group(1)


def source_techniques(source):
    used = set()
    if "#pragma omp" in source:
        used.add("openmp")
    if "_mm512_" in source:
        used.add("avx512")
    if re.search(r"(ii|jj|pp) \+= \d+\)", source):
        used.add("blocking")
    return used


class FakeScorer:
    """Advances one ladder stage every `per_stage` evaluations, between batches; GFLOPS from a
    hash of the genome label (stable), 0 with a constraint_violation for a stage's misfit."""

    def __init__(self, per_stage=32, report_stage=False):
        self.per_stage = per_stage
        self.evaluations = 0
        self.batches = []
        self.report_stage = report_stage
        self.current_stages = {}

    def stage(self):
        return LADDER[min(self.evaluations // self.per_stage, len(LADDER) - 1)]

    def __call__(self, batch):
        stage = self.stage()
        allows, requires = kernels.DEFAULT_STAGES[stage]
        self.batches.append((stage, batch))
        results = []
        for candidate in batch:
            used = source_techniques(candidate["source"])
            ok = used <= set(allows) and set(requires) <= used
            gflops = (sum(map(ord, label_of(candidate["source"]))) % 97) / 3.0 if ok else 0.0
            results.append({"id": candidate["id"], "status": "ok" if ok else "constraint_violation",
                            "reward": gflops if ok else -100.0, "gflops": gflops, "stage": stage,
                            "reason": "" if ok else f"stage {stage} misfit"})
        self.evaluations += len(batch)
        if self.report_stage:
            self.current_stages = {"dgemm-256": self.stage()}
        return list(reversed(results))  # the loop must match by id, not by position


def test_archive_keeps_the_best_of_each_niche():
    archive = Archive(descriptor)
    g = Genome("ikj", ti=64)
    assert archive.offer("o3", g, 1.0, "a", 1) == "new_niche"
    assert archive.offer("o3", g, 0.5, "b", 2) == ""
    assert archive.offer("o3", Genome("ikj", ti=64, unroll=4), 2.0, "c", 3) == "new_elite"  # same niche
    assert archive.offer("openmp", g, 0.1, "d", 4) == "new_niche"  # niches are per stage
    assert len(archive) == 2 and archive.in_stage("o3")[0].candidate_id == "c"
    assert descriptor(Genome("kij", tj=32, tk=16, openmp=True, avx512=True)) == "openmp+avx512+blocking|kij|0x32x16"
    assert descriptor(Genome("jik")) == "plain|jik|0x0x0"


def test_mutation_changes_one_gene_and_stays_valid():
    rng = random.Random(5)
    for stage in LADDER:
        g = kernels.random_genome(rng, stage)
        for _ in range(200):
            child = kernels.mutate(g, rng, stage)
            assert kernels.is_valid(child, stage), (stage, child)
            g = child


def test_follows_the_stage_from_results_and_every_candidate_fits_its_stage():
    scorer = FakeScorer(per_stage=32)
    loop = MapElites(scorer, seed=3, batch_size=16)
    report = loop.run(200)
    assert report["evaluations"] == 200 and loop.evaluations == 200
    stages_asked = [h["asked_stage"] for h in loop.history]
    assert stages_asked[0] == "o0" and loop.stage == "blocking"
    assert set(stages_asked) == set(LADDER)
    # Followed from the results: at most one batch per stage change scored in a stage it was not made for.
    misfits = {h["evaluation"] for h in loop.history if h["stage"] != h["asked_stage"]}
    assert len(misfits) <= 16 * (len(LADDER) - 1)
    for h in loop.history:
        if h["stage"] == h["asked_stage"]:
            assert h["status"] == "ok", h
    assert len(loop.archive) > 10
    assert report["best"]["gflops"] == max(h["gflops"] for h in loop.history)
    assert report["best"]["source"].startswith("// hpcreward_generator")
    json.dumps(report)  # the report is JSON


def test_a_scorer_that_reports_its_stage_is_followed_without_misfits():
    scorer = FakeScorer(per_stage=32, report_stage=True)
    loop = MapElites(scorer, seed=4, batch_size=16)
    loop.run(160)
    assert all(h["status"] == "ok" for h in loop.history)
    assert [stage for stage, _ in scorer.batches][::2] == LADDER


def test_same_seed_same_run_other_seed_other_run():
    def run(seed):
        loop = MapElites(FakeScorer(per_stage=40), seed=seed, batch_size=8)
        loop.run(96)
        return [(h["genome"], h["stage"], h["gflops"]) for h in loop.history]
    assert run(11) == run(11)
    assert run(11) != run(12)


def test_parents_come_from_elites_and_batches_hold_no_duplicates():
    scorer = FakeScorer(per_stage=10_000)  # stays in o0
    loop = MapElites(scorer, seed=2, batch_size=16, random_fraction=0.0)
    proposed = []
    original = loop.propose
    loop.propose = lambda count: proposed.append(original(count)) or proposed[-1]
    loop.run(32)
    labels = [h["genome"] for h in loop.history]
    assert len(labels) == len(set(labels)), "a genome was scored twice in one stage"
    assert loop.stage == "o0" and len(loop.archive) >= 3
    # After the first batch (random) every child is one mutation of an elite of the first batch.
    first = proposed[0]
    for child in proposed[1]:
        distance = min(sum(getattr(child, gene) != getattr(parent, gene) for gene in kernels.GENES)
                       for parent in first)
        assert distance <= 2, child  # one gene, plus what repair changed with it (jam with the order)


def test_served_scorer_passes_batches_to_the_client():
    from hpcreward_generator.served_scorer import ServedScorer

    class FakeClient:
        """Moves dgemm-256 up one stage after every batch, as a quick ladder would."""
        ladder = ["o0", "o3", "openmp"]

        def __init__(self):
            self.batches = []

        def score_candidates(self, candidates):
            self.batches.append(candidates)
            return [{"id": c["id"], "status": "ok", "reward": 1.0, "gflops": 1.0, "stage": c.get("stage", "o0"),
                     "reason": ""} for c in candidates]

        def stages(self):
            return {"dgemm-256": self.ladder[min(len(self.batches), len(self.ladder) - 1)]}

    client = FakeClient()
    pinned = MapElites(ServedScorer(client), seed=1, batch_size=4, stage="o3", pin=True)
    pinned.run(8)
    assert all(c["stage"] == "o3" for batch in client.batches for c in batch), "a pinned search names its stage"
    assert pinned.stage == "o3", "and stays there whatever the pipeline's ladder says"
    # Following the ladder: each batch is written for the stage GET /v1/stages reported.
    following_client = FakeClient()
    following = ServedScorer(following_client)
    loop = MapElites(following, seed=1, batch_size=4)
    loop.run(12)
    assert following.current_stages == {"dgemm-256": "openmp"} and loop.evaluations == 12
    first, _, third = following_client.batches
    assert not any("stage" in c for c in first), "a following search leaves the stage to the pipeline"
    assert not any("#pragma omp" in c["source"] for c in first), "o0 allows no OpenMP"
    assert all("#pragma omp" in c["source"] for c in third), "openmp requires it"
