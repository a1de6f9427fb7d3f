"""MAP-Elites over the genomes of kernels.py, scored by the hpcreward pipeline.

The loop talks to the pipeline through one callable, `score(batch) -> results`: `batch` is a
list of JSONL-candidate dicts {"id", "problem", "source"}, `results` one dict per candidate
{"id", "status", "reward", "gflops", "stage", "reason"} (any order; matched by id). A scorer
may also have a `current_stage` attribute (the stage its pipeline will score the next batch
in, when it knows it, e.g. the file scorer reads the log's stage events); otherwise the stage
of the latest results is followed.
"""
from __future__ import annotations

import dataclasses
import random
from typing import Callable

from . import kernels
from .kernels import Genome

ScoreFn = Callable[[list], list]


def descriptor(genome: Genome) -> str:
    """Niche key: techniques, loop order, tile sizes (already powers of two: the buckets)."""
    used = "+".join(kernels.techniques(genome)) or "plain"
    tiles = "x".join(str(t) for t in (genome.ti, genome.tj, genome.tk))
    return f"{used}|{genome.loop_order}|{tiles}"


@dataclasses.dataclass
class Elite:
    genome: Genome
    gflops: float
    candidate_id: str
    evaluation: int


class Archive:
    """Per stage, the best verified candidate of each niche."""

    def __init__(self):
        self.niches: dict[tuple[str, str], Elite] = {}

    def offer(self, stage: str, genome: Genome, gflops: float, candidate_id: str, evaluation: int) -> str:
        """'new_niche', 'new_elite' or '' (the niche's elite stays)."""
        key = (stage, descriptor(genome))
        current = self.niches.get(key)
        if current is None:
            self.niches[key] = Elite(genome, gflops, candidate_id, evaluation)
            return "new_niche"
        if gflops > current.gflops:
            self.niches[key] = Elite(genome, gflops, candidate_id, evaluation)
            return "new_elite"
        return ""

    def in_stage(self, stage: str) -> list[Elite]:
        return [elite for (s, _), elite in sorted(self.niches.items()) if s == stage]

    def all(self) -> list[Elite]:
        return [elite for _, elite in sorted(self.niches.items())]

    def __len__(self):
        return len(self.niches)


def random_genome(rng: random.Random, stage: str | None, stages: dict | None = None) -> Genome:
    genome = Genome(
        loop_order=rng.choice(kernels.ORDERS),
        ti=rng.choice(kernels.TILE_SIZES), tj=rng.choice(kernels.TILE_SIZES), tk=rng.choice(kernels.TILE_SIZES),
        unroll=rng.choice(kernels.UNROLLS), jam=rng.choice(kernels.JAMS), rows=rng.choice(kernels.ROWS),
        openmp=rng.random() < 0.5, avx512=rng.random() < 0.5, pack=rng.random() < 0.5,
        restrict=rng.random() < 0.5)
    return kernels.repair(genome, stage, rng, stages)


GENES = ("loop_order", "ti", "tj", "tk", "unroll", "jam", "rows", "openmp", "avx512", "pack", "restrict")


def mutate(genome: Genome, rng: random.Random, stage: str | None, stages: dict | None = None) -> Genome:
    """Changes one gene (to a different value), then repairs the genome for `stage`."""
    gene = rng.choice(GENES)
    value = getattr(genome, gene)
    if gene == "loop_order":
        new = rng.choice([o for o in kernels.ORDERS if o != value])
    elif gene in ("ti", "tj", "tk"):
        new = rng.choice([t for t in kernels.TILE_SIZES if t != value])
    elif gene == "unroll":
        new = rng.choice([u for u in kernels.UNROLLS if u != value])
    elif gene == "jam":
        new = rng.choice([u for u in kernels.JAMS if u != value])
    elif gene == "rows":
        new = rng.choice([u for u in kernels.ROWS if u != value])
    else:
        new = not value
    return kernels.repair(dataclasses.replace(genome, **{gene: new}), stage, rng, stages)


class MapElites:
    def __init__(self, score: ScoreFn, seed: int = 1, batch_size: int = 16, problem: str = "dgemm-256",
                 stage: str = "o0", stages: dict | None = None, random_fraction: float = 0.1,
                 precision: str | None = None, log: Callable[[str], None] | None = None):
        self.score = score
        self.rng = random.Random(seed)
        self.seed = seed
        self.batch_size = batch_size
        self.problem = problem
        self.precision = precision or ("f32" if problem.startswith("sgemm") else "f64")
        self.stage = stage
        self.stages = stages or kernels.DEFAULT_STAGES
        self.random_fraction = random_fraction
        self.archive = Archive()
        self.evaluations = 0
        self.batches = 0
        self.history: list[dict] = []       # one entry per evaluated candidate
        self.best: dict | None = None       # {"gflops", "genome", "source", "stage", "id", "evaluation"}
        self.seen: set[tuple[str, Genome]] = set()
        self.log = log or (lambda line: None)

    # -- proposal --------------------------------------------------------------------------
    def propose(self, count: int) -> list[Genome]:
        """`count` new genomes valid in the current stage: mutations of elites chosen uniformly
        over niches (this stage's niches; before it has any, every stage's), some random."""
        parents = self.archive.in_stage(self.stage) or self.archive.all()
        batch: list[Genome] = []
        for _ in range(count):
            genome = None
            for _attempt in range(50):
                if not parents or self.rng.random() < self.random_fraction:
                    candidate = random_genome(self.rng, self.stage, self.stages)
                else:
                    candidate = mutate(self.rng.choice(parents).genome, self.rng, self.stage, self.stages)
                    if not kernels.is_valid(candidate, self.stage, self.stages):
                        continue
                if (self.stage, candidate) not in self.seen and candidate not in batch:
                    genome = candidate
                    break
            if genome is None:  # the neighbourhood is exhausted: anything new and valid
                genome = random_genome(self.rng, self.stage, self.stages)
            batch.append(genome)
        return batch

    # -- one generation --------------------------------------------------------------------
    def step(self) -> list[dict]:
        genomes = self.propose(self.batch_size)
        self.batches += 1
        candidates = []
        for index, genome in enumerate(genomes):
            cid = f"s{self.seed}-b{self.batches:04d}-{index:02d}"
            candidates.append({"id": cid, "problem": self.problem,
                               "source": kernels.render(genome, self.precision)})
        asked_stage = self.stage
        results = {r["id"]: r for r in self.score(candidates)}
        stages_seen = []
        for genome, candidate in zip(genomes, candidates):
            result = results.get(candidate["id"], {"status": "missing", "gflops": 0.0, "reward": 0.0,
                                                   "stage": "", "reason": "no result"})
            self.evaluations += 1
            stage = result.get("stage") or asked_stage
            stages_seen.append(stage)
            self.seen.add((stage, genome))
            gflops = float(result.get("gflops") or 0.0)
            change = ""
            if result.get("status") == "ok":
                change = self.archive.offer(stage, genome, gflops, candidate["id"], self.evaluations)
                if self.best is None or gflops > self.best["gflops"]:
                    self.best = {"gflops": gflops, "genome": genome.to_dict(), "label": genome.label(),
                                 "source": candidate["source"], "stage": stage, "id": candidate["id"],
                                 "evaluation": self.evaluations}
            self.history.append({"evaluation": self.evaluations, "id": candidate["id"], "stage": stage,
                                 "asked_stage": asked_stage, "genome": genome.label(),
                                 "status": result.get("status"), "gflops": gflops,
                                 "reason": (result.get("reason") or "")[:200], "archive": change,
                                 "best_gflops": self.best["gflops"] if self.best else 0.0})
        # Follow the pipeline: the stage it says it is in now, else the stage of its latest row.
        reported = getattr(self.score, "current_stage", None)
        if reported in self.stages:
            self.stage = reported
        elif stages_seen and stages_seen[-1] in self.stages:
            self.stage = stages_seen[-1]
        self.log(self.progress_line())
        return [self.history[-len(genomes) + i] for i in range(len(genomes))]

    def progress_line(self) -> str:
        best = self.best["gflops"] if self.best else 0.0
        ok = sum(1 for h in self.history[-self.batch_size:] if h["status"] == "ok")
        return (f"evaluations {self.evaluations}  best {best:.2f} GFLOPS  niches {len(self.archive)}  "
                f"stage {self.stage}  last batch ok {ok}/{min(self.batch_size, len(self.history))}")

    def run(self, evaluations: int) -> dict:
        while self.evaluations < evaluations:
            self.batch_size = min(self.batch_size, evaluations - self.evaluations)
            self.step()
        return self.report()

    def report(self) -> dict:
        return {
            "seed": self.seed, "problem": self.problem, "evaluations": self.evaluations,
            "batches": self.batches, "stage": self.stage, "best": self.best,
            "niches": len(self.archive),
            "archive": [{"stage": stage, "niche": niche, "gflops": e.gflops, "genome": e.genome.label(),
                         "id": e.candidate_id, "evaluation": e.evaluation}
                        for (stage, niche), e in sorted(self.archive.niches.items())],
            "gflops_over_evaluations": [[h["evaluation"], h["gflops"], h["best_gflops"], h["stage"], h["status"]]
                                        for h in self.history],
        }
