"""MAP-Elites over the genomes of a kernel family (family.py: C or CUDA), scored by the hpcreward pipeline.

The loop talks to the pipeline through one callable, `score(batch) -> results`: `batch` is a
list of JSONL-candidate dicts {"id", "problem", "source", "stage"?}, `results` one dict per
candidate {"id", "status", "reward", "gflops", "stage", "reason"} (any order; matched by id). A
scorer may also have a `current_stages` attribute, {problem: stage}: the stage its pipeline will
score each problem's next batch in, when it knows it (the file scorer reads the log's stage
events, the served scorer asks GET /v1/stages); otherwise the stage of the latest results is
followed. Several searches (a C one and a CUDA one) can share the scorer's batches
(`run_searches`: one batch a round, what file mode does), or each keep batches of its own in
flight on a served pipeline (`in_flight.run_searches_in_flight`); either way a batch is made by
next_batch() and filed by take_results(), and a search may have several batches out at once.
"""
from __future__ import annotations

import dataclasses
import random
from typing import Callable, Union

from .family import CFamily, CudaFamily, family_for

ScoreFn = Callable[[list], list]
Family = Union[CFamily, CudaFamily]


@dataclasses.dataclass
class Elite:
    genome: object  # the family's genome (a frozen dataclass)
    gflops: float
    candidate_id: str
    evaluation: int


class Archive:
    """Per stage, the best verified candidate of each niche (`descriptor`: the family's niche key)."""

    def __init__(self, descriptor: Callable[[object], str]):
        self.descriptor = descriptor
        self.niches: dict[tuple[str, str], Elite] = {}

    def offer(self, stage: str, genome, gflops: float, candidate_id: str, evaluation: int) -> str:
        """'new_niche', 'new_elite' or '' (the niche's elite stays)."""
        key = (stage, self.descriptor(genome))
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


class Batch(list):
    """A batch from next_batch(): (candidate, genome) pairs, with the batch's number (its ids'
    b<number>) and the stage it was made for."""

    def __init__(self, pairs, number: int, stage: str):
        super().__init__(pairs)
        self.number = number
        self.stage = stage


class MapElites:
    """One search: a family's genomes for one problem, an archive per stage, the stage it follows."""

    def __init__(self, score: ScoreFn | None, seed: int = 1, batch_size: int = 16, problem: str = "dgemm-256",
                 stage: str | None = None, pin: bool = False, family: Family | None = None,
                 random_fraction: float = 0.1, log: Callable[[str], None] | None = None):
        """family: the problem's family (default family_for(problem), which reads the default
        ladder); stage: where the search starts (default the family's first ladder stage); pin:
        every candidate names that stage and the search never moves (the pipeline scores it there)."""
        self.score = score
        self.family = family or family_for(problem)
        self.problem = self.family.problem
        self.rng = random.Random(seed)
        self.seed = seed
        self.batch_size = batch_size
        self.stage = stage or self.family.first_stage
        if self.stage not in self.family.stages:
            raise ValueError(f"stage {self.stage!r} is not one of {self.problem}'s ({', '.join(self.family.stages)})")
        self.pin = pin
        self.random_fraction = random_fraction
        self.archive = Archive(self.family.descriptor)
        self.evaluations = 0
        self.batches = 0                    # batches whose results are filed (the report's count)
        self.batches_made = 0               # batches made: the b<number> of the next one's ids is this + 1
        self.in_flight: dict[int, Batch] = {}  # made, results not yet filed, by number
        self._stage_from_batch = 0          # the newest batch whose results set the stage (no current_stages)
        self.last_batch = 0
        self.history: list[dict] = []       # one entry per evaluated candidate
        self.best: dict | None = None       # {"gflops", "genome", "label", "source", "stage", "id", "evaluation"}
        self.seen: set[tuple[str, object]] = set()
        self.earlier_runs: list[dict] = []  # {"seed", "evaluations", "batches"} of the runs restore() went on from
        self.log = log or (lambda line: None)

    # -- proposal --------------------------------------------------------------------------
    def propose(self, count: int) -> list:
        """`count` new genomes valid in the current stage: mutations of elites chosen uniformly
        over niches (this stage's niches; before it has any, every stage's), some random."""
        family = self.family
        parents = self.archive.in_stage(self.stage) or self.archive.all()
        # A genome in a batch still in flight counts as seen: it is not sent twice at once.
        in_flight = {genome for batch in self.in_flight.values() for _, genome in batch}
        batch = []
        for _ in range(count):
            genome = None
            for _attempt in range(50):
                if not parents or self.rng.random() < self.random_fraction:
                    candidate = family.random(self.rng, self.stage)
                else:
                    candidate = family.mutate(self.rng.choice(parents).genome, self.rng, self.stage)
                    if not family.is_valid(candidate, self.stage):
                        continue
                if (self.stage, candidate) not in self.seen and candidate not in in_flight and candidate not in batch:
                    genome = candidate
                    break
            if genome is None:  # the neighbourhood is exhausted: anything valid, not out already
                genome = self._random_not_out(in_flight, batch)
            batch.append(genome)
        return batch

    def _random_not_out(self, in_flight: set, batch: list):
        for _attempt in range(50):
            genome = self.family.random(self.rng, self.stage)
            if genome not in in_flight and genome not in batch:
                break
        return genome

    # -- one generation, in two halves so that batches can be shared or kept in flight ------
    def next_batch(self, count: int | None = None) -> Batch:
        """The next batch, made for the current stage; in flight until take_results() files it.
        Its number (ids [cuda-]s<seed>-b<number>-<i>) is taken now, so batches made while
        others are out never share an id."""
        genomes = self.propose(count or self.batch_size)
        self.batches_made += 1
        number = self.batches_made
        pairs = []
        for index, genome in enumerate(genomes):
            candidate = {"id": f"{self.family.id_prefix}s{self.seed}-b{number:04d}-{index:02d}",
                         "problem": self.problem, "source": self.family.render(genome)}
            if self.pin:
                candidate["stage"] = self.stage
            pairs.append((candidate, genome))
        batch = Batch(pairs, number, self.stage)
        self.in_flight[number] = batch
        return batch

    def outstanding(self) -> int:
        """Candidates made and not yet filed."""
        return sum(len(batch) for batch in self.in_flight.values())

    def take_results(self, batch: Batch, results: dict, current_stages: dict) -> None:
        """Files the results (by candidate id) of a batch from next_batch(), each under the
        stage it was scored in (a batch answered late may have been scored in a stage the
        search has left since), then moves to the stage the pipeline reports for the problem
        (`current_stages`, which the caller reads after the answer, so it is never older than
        one used before), else to that of the latest result of the newest batch filed."""
        self.in_flight.pop(getattr(batch, "number", None), None)
        asked_stage = getattr(batch, "stage", self.stage)
        stages_seen = []
        for candidate, genome in batch:
            result = results.get(candidate["id"], {"status": "missing", "gflops": 0.0, "reward": 0.0,
                                                   "stage": "", "reason": "no result"})
            stages_seen.append(self._file(candidate, genome, result, asked_stage))
        self.batches += 1
        self.last_batch = len(batch)
        self._follow_stage((current_stages or {}).get(self.problem), stages_seen, getattr(batch, "number", None))
        self.log(self.progress_line())

    def _file(self, candidate: dict, genome, result: dict, asked_stage: str) -> str:
        """One result into the counts, the archive of its stage, the best and the history; its stage."""
        self.evaluations += 1
        stage = result.get("stage") or asked_stage
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
        return stage

    def follow_reported_stage(self, current_stages: dict) -> bool:
        """Moves to the stage the pipeline reports for the problem, if it reports one (and the
        search is not pinned); the caller passes its newest report. True if it reported one."""
        reported = (current_stages or {}).get(self.problem)
        if reported not in self.family.stages:
            return False
        if not self.pin:
            self.stage = reported
        return True

    def _follow_stage(self, reported: str | None, stages_seen: list[str], number: int | None) -> None:
        if self.follow_reported_stage({self.problem: reported}) or self.pin:
            return
        if stages_seen and stages_seen[-1] in self.family.stages:
            # From results alone: a batch answered after a newer one was scored earlier (in an
            # older stage, perhaps) and must not move the search back.
            if number is None or number >= self._stage_from_batch:
                self.stage = stages_seen[-1]
                self._stage_from_batch = number or self._stage_from_batch

    def step(self) -> list[dict]:
        """One batch of this search alone."""
        batch = self.next_batch()
        results = {r["id"]: r for r in self.score([candidate for candidate, _ in batch])}
        self.take_results(batch, results, getattr(self.score, "current_stages", None) or {})
        return self.history[-len(batch):]

    def progress_line(self) -> str:
        best = self.best["gflops"] if self.best else 0.0
        ok = sum(1 for h in self.history[-self.last_batch:] if h["status"] == "ok") if self.last_batch else 0
        return (f"{self.problem}: evaluations {self.evaluations}  best {best:.2f} GFLOPS  niches {len(self.archive)}  "
                f"stage {self.stage}  last batch ok {ok}/{self.last_batch}")

    def run(self, evaluations: int) -> dict:
        run_searches([(self, evaluations)], self.score)
        return self.report()

    def report(self) -> dict:
        return {
            "seed": self.seed, "problem": self.problem, "language": self.family.language,
            "evaluations": self.evaluations, "batches": self.batches, "stage": self.stage,
            "stage_pinned": self.pin, "best": self.best, "niches": len(self.archive),
            "archive": [{"stage": stage, "niche": niche, "gflops": e.gflops, "genome": e.genome.label(),
                         "genome_fields": e.genome.to_dict(), "id": e.candidate_id, "evaluation": e.evaluation}
                        for (stage, niche), e in sorted(self.archive.niches.items())],
            "gflops_over_evaluations": [[h["evaluation"], h["gflops"], h["best_gflops"], h["stage"], h["status"]]
                                        for h in self.history],
            "earlier_runs": self.earlier_runs,
        }

    # -- going on from a report ------------------------------------------------------------
    def restore(self, report: dict) -> None:
        """Makes this new search go on from `report` (report() of a stopped search of the same
        problem and language): its archive, best, evaluation and batch counts, history, stage
        (unless this search is pinned) and, as genomes seen, the archive's. Its own seed and RNG
        stay. Its next ids are s<seed>-b<batch>-<i> with the count of batches filed going on, and
        a batch still out when the report was written may be logged under the old seed and such
        a number: so the seed must be one no earlier run of the search used. Raises ValueError
        saying what is wrong: another problem or language, a seed used before, a report that
        does not read as one (a niche its genome does not have, a genome that does not render,
        counts that disagree); the search is then left as it was."""
        if self.evaluations or self.batches_made:
            raise ValueError("only a new search can go on from a report")
        if not isinstance(report, dict):
            raise ValueError("not a generator report (a JSON object)")
        problem, language = report.get("problem"), report.get("language")
        if (problem, language) != (self.problem, self.family.language):
            raise ValueError(f"the report of a {language} search of {problem}, not of this {self.family.language} "
                             f"search of {self.problem}")
        try:
            self._restore_from(report)
        except (KeyError, IndexError, TypeError, AttributeError) as error:
            raise ValueError(f"not a complete generator report ({type(error).__name__}: {error})") from error

    def _restore_from(self, report: dict) -> None:
        earlier = [self._run_of(run) for run in report.get("earlier_runs", [])] + [self._run_of(report)]
        if self.seed in {run["seed"] for run in earlier}:
            raise ValueError(f"seed {self.seed} is one this search ran with before: its next candidate ids could be "
                             "ids the pipeline's log holds for other candidates (answered from the log); "
                             "give a seed no earlier run used")
        history = [self._history_entry(row) for row in report["gflops_over_evaluations"]]
        evaluations = _count(report["evaluations"], "evaluations")
        if [h["evaluation"] for h in history] != list(range(1, evaluations + 1)):
            raise ValueError(f"its gflops_over_evaluations does not hold evaluations 1 to {evaluations}")
        elites = [self._elite_from(entry) for entry in report["archive"]]
        if len({key for key, _ in elites}) != len(elites):
            raise ValueError("its archive holds a niche twice")
        best = report["best"]
        if best is not None:
            self._check_best(best)
        for key, elite in elites:
            self.archive.niches[key] = elite
            self.seen.add((key[0], elite.genome))
        self.best = dict(best) if best is not None else None
        self.evaluations, self.batches = evaluations, _count(report["batches"], "batches")
        # Numbered on from the batches filed: a batch that was in flight when the report was
        # written may be logged under the old seed and such a number, never under this seed.
        self.batches_made = self.batches
        self.history = history
        self.earlier_runs = earlier
        if not self.pin and report.get("stage") in self.family.stages:
            self.stage = report["stage"]

    def _elite_from(self, entry: dict) -> tuple[tuple[str, str], Elite]:
        """((stage, niche), elite) of a report's archive entry; the niche is recomputed (the
        family's descriptor) and must be the one the report gives."""
        if "genome_fields" in entry:
            genome = self._genome_from_fields(entry["genome_fields"])
            if genome.label() != entry["genome"]:
                raise ValueError(f"archive entry {entry['id']}: its genome fields are {genome.label()}, "
                                 f"its label {entry['genome']}")
        else:  # a report written before the fields were: the label names every gene
            genome = self.family.genome_type.from_label(entry["genome"])
        if not self.family.is_valid(genome, None):
            raise ValueError(f"archive entry {entry['id']}: {genome.label()} cannot be rendered for {self.problem}")
        niche = self.family.descriptor(genome)
        if niche != entry["niche"]:
            raise ValueError(f"archive entry {entry['id']}: niche {entry['niche']!r}, but {genome.label()} falls "
                             f"in {niche!r}")
        elite = Elite(genome, _number(entry["gflops"], "an elite's gflops"), str(entry["id"]),
                      _count(entry["evaluation"], "an elite's evaluation"))
        return (str(entry["stage"]), niche), elite

    def _check_best(self, best: dict) -> None:
        missing = {"gflops", "genome", "label", "source", "stage", "id", "evaluation"} - set(best)
        if missing:
            raise ValueError(f"its best lacks {', '.join(sorted(missing))}")
        _number(best["gflops"], "the best's gflops")
        self._genome_from_fields(best["genome"])

    @staticmethod
    def _run_of(report: dict) -> dict:
        """{"seed", "evaluations", "batches"} of a report (or of an entry of its earlier_runs)."""
        return {key: _count(report[key], key) for key in ("seed", "evaluations", "batches")}

    def _genome_from_fields(self, fields: dict):
        genome = self.family.genome_type.from_dict(fields)
        if genome.to_dict() != fields:  # a missing, unknown or odd field: not this family's genome
            raise ValueError(f"{fields!r} are not the fields of a {self.family.genome_type.__name__}")
        return genome

    @staticmethod
    def _history_entry(row: list) -> dict:
        """A history entry from a gflops_over_evaluations row: what the report kept of it."""
        if not isinstance(row, list) or len(row) != 5:
            raise ValueError(f"a gflops_over_evaluations row is {row!r}, not [evaluation, gflops, best, stage, status]")
        evaluation, gflops, best_gflops, stage, status = row
        return {"evaluation": _count(evaluation, "an evaluation"), "id": None, "stage": stage, "asked_stage": None,
                "genome": None, "status": status, "gflops": _number(gflops, "a gflops"), "reason": None,
                "archive": None, "best_gflops": _number(best_gflops, "a best gflops")}


def _count(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} is {value!r}, not a count")
    return value


def _number(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} is {value!r}, not a number")
    return float(value)


def run_searches(searches: list[tuple[MapElites, int]], score: ScoreFn,
                 after_round: Callable[[], None] | None = None) -> None:
    """Runs each (search, evaluations) until it has that many evaluations. Every round, one
    batch holds the next proposals of every search still running: the pipeline scores them
    together (a C search's on CPU ranks while a CUDA search's are on GPU ranks) and each search
    takes its own results back by id. `after_round` is called once each round's results are in
    (the command line writes its reports then, so a run cut short keeps what it found)."""
    while True:
        running = [(search, wanted) for search, wanted in searches if search.evaluations < wanted]
        if not running:
            return
        parts = [(search, search.next_batch(min(search.batch_size, wanted - search.evaluations)))
                 for search, wanted in running]
        results = {r["id"]: r for r in score([candidate for _, batch in parts for candidate, _ in batch])}
        current_stages = dict(getattr(score, "current_stages", None) or {})
        for search, batch in parts:
            search.take_results(batch, results, current_stages)
        if after_round:
            after_round()
