"""Searches with batches of their own in flight (in_flight.py) against a fake pipeline that
answers batches out of order, as a served coordinator with batches in flight does: each search
sends its own batches and neither waits for the other, at most K batches of a search are out,
no genome is out twice at once, a batch answered late in a stage the search has left is filed
under the stage it was scored in, reports after every batch, going on from a report after a
stop with batches out, and the command's --in-flight.

Nothing here depends on timing: the fake holds a batch on threading.Events that other batches
set (arrived, answered), so the order of answers is the one each test asks for. A wait that a
correct loop never leaves unset has a generous failsafe (WAIT_S) that fails the test instead
of hanging it."""
import collections
import json
import random
import re
import threading

import pytest

from hpcreward_generator import cuda_kernels as ck
from hpcreward_generator import kernels
from hpcreward_generator.in_flight import run_searches_in_flight
from hpcreward_generator.map_elites import MapElites
from test_cuda_map_elites import C_LADDER, CUDA_LADDER, source_techniques
from test_resume import generator, sent_batches, served  # noqa: F401 (served: a fixture)

WAIT_S = 120  # failsafe only: with a correct loop every wait below ends when another batch sets it


def label_of(source):
    """The genome label on a source's first line (C and CUDA sources alike)."""
    return re.match(r"// (?:hpcreward_generator: )?(\S+)", source).group(1)


class Events:
    """threading.Events by name, made when first asked for."""

    def __init__(self):
        self._lock = threading.Lock()
        self._events = {}

    def __call__(self, *name):
        with self._lock:
            return self._events.setdefault(name, threading.Event())


def wait(event, what):
    if not event.wait(WAIT_S):
        raise AssertionError(f"waited {WAIT_S} s for {what}: the loop never sent or answered it")


def number_of(candidate):
    """The number of the search's batch a candidate is in: [cuda-]s<seed>-b<number>-<i>."""
    return int(re.search(r"-b(\d+)-\d+$", candidate["id"]).group(1))


class OutOfOrderPipeline:
    """A served coordinator with batches in flight, per problem: a batch runs in the stage its
    problem has when it arrives (admission); when it is answered, its rows count toward the
    problem's stage only if they ran in it, and every `per_stage` such rows move the problem one
    stage up its ladder, published (current_stages, replaced whole) before the answer. A
    candidate whose techniques do not fit its stage is a constraint_violation.

    `hold(pipeline, problem, n)` (n: the batch's number, b<n> in its ids) gives the (event, what)
    a batch waits for before it is answered; `events("arrived"|"answered", problem, n)` and
    `events("arrivals", problem, count)` are set as batches arrive and are answered. `last`:
    problem -> the number of its search's last batch, where a rule needs it. It records, per
    problem, how many batches were in the pipeline at once, any genome that arrived while it
    was out already, and any batch of more than one problem."""

    def __init__(self, per_stage=16, hold=None, last=None):
        self.per_stage = per_stage
        self.hold = hold or (lambda pipeline, problem, n: [])
        self.last = last or {}
        self.events = Events()
        self.lock = threading.Lock()
        self.stage_index = collections.Counter()  # problem -> index on its ladder
        self.counted = collections.Counter()      # problem -> rows counted toward its stage
        self.arrivals = collections.Counter()      # problem -> batches arrived
        self.out = collections.defaultdict(dict)   # problem -> {n: labels of the batch out}
        self.most_out = collections.Counter()      # problem -> most batches out at once
        self.twice_out = []                        # (problem, label) sent while out already
        self.mixed = []                            # batches naming more than one problem
        self.answered = []                         # (problem, n, stage) in order of answer
        self.current_stages = {}

    @staticmethod
    def ladder(problem):
        return CUDA_LADDER if problem.startswith("cuda-") else C_LADDER

    def stage(self, problem):
        return self.ladder(problem)[self.stage_index[problem]]

    def __call__(self, batch):
        problems = {candidate["problem"] for candidate in batch}
        if len(problems) != 1:
            self.mixed.append(sorted(problems))
        problem, n = batch[0]["problem"], number_of(batch[0])
        labels = [label_of(candidate["source"]) for candidate in batch]
        with self.lock:  # admission
            self.arrivals[problem] += 1
            arrivals = self.arrivals[problem]
            stage = self.stage(problem)
            already_out = {label for out in self.out[problem].values() for label in out}
            self.twice_out += [(problem, label) for label in labels if label in already_out]
            self.out[problem][n] = labels
            self.most_out[problem] = max(self.most_out[problem], len(self.out[problem]))
            waits = self.hold(self, problem, n)
        self.events("arrived", problem, n).set()
        self.events("arrivals", problem, arrivals).set()
        for event, what in waits:
            wait(event, f"{what} (before answering {problem} batch {n})")
        with self.lock:
            results = [self.result(candidate, stage) for candidate in batch]
            if stage == self.stage(problem):
                self.counted[problem] += len(batch)
                if self.counted[problem] >= self.per_stage and \
                        self.stage_index[problem] < len(self.ladder(problem)) - 1:
                    self.stage_index[problem] += 1
                    self.counted[problem] = 0
            self.current_stages = {p: self.stage(p) for p in self.arrivals}
            del self.out[problem][n]
            self.answered.append((problem, n, stage))
        self.events("answered", problem, n).set()
        return list(reversed(results))  # matched by id

    @staticmethod
    def result(candidate, stage):
        rules = ck.DEFAULT_STAGES if stage.startswith("cuda-") else kernels.DEFAULT_STAGES
        allows, requires = rules[stage]
        used = source_techniques(candidate["source"])
        ok = used <= set(allows) and set(requires) <= used
        gflops = (sum(map(ord, label_of(candidate["source"]))) % 89 + 1) * 10.0 if ok else 0.0
        return {"id": candidate["id"], "status": "ok" if ok else "constraint_violation", "reward": gflops,
                "gflops": gflops, "stage": stage, "reason": "" if ok else f"{sorted(used)} in {stage}"}


def odd_after_even(pipeline, problem, n):
    """Out of order, in pairs: an odd batch is answered after the next one (when there is a next
    one), which is answered once the odd one has arrived. So both of a pair run in the stage the
    pair before them earned, the even one moves the stage on, and the odd one comes back late."""
    if n % 2 == 1 and n < pipeline.last.get(problem, float("inf")):
        return [(pipeline.events("answered", problem, n + 1), f"{problem} batch {n + 1} answered")]
    if n % 2 == 0:
        return [(pipeline.events("arrived", problem, n - 1), f"{problem} batch {n - 1} arrived")]
    return []


# -- (a) each search its own batches, neither waiting for the other ------------------------------

@pytest.mark.parametrize("held, free", [("dgemm-256", "cuda-sgemm-4096"), ("cuda-sgemm-4096", "dgemm-256")])
def test_each_search_sends_its_own_batches_and_neither_waits_for_the_other(held, free):
    # Every batch of the held search waits until the free search has had 4 batches answered
    # and filed: sharing batches, or taking turns, the run could never get there. The free
    # search's first batch waits until both of the held search's are out.
    filed = Events()

    def hold(pipeline, problem, n):
        if problem == held:
            return [(filed(free, 4), f"4 batches of {free} filed")]
        return [(pipeline.events("arrivals", held, 2), f"2 batches of {held} out")] if n == 1 else []

    pipeline = OutOfOrderPipeline(per_stage=1000, hold=hold)
    searches = {problem: MapElites(pipeline, seed=1, batch_size=16, problem=problem) for problem in (held, free)}
    seen_when_free_had_4 = []

    def after_batch(search):
        if search.problem == free:
            if search.batches == 4:
                other = searches[held]
                seen_when_free_had_4.append((other.evaluations, len(other.in_flight)))
            filed(free, search.batches).set()

    run_searches_in_flight([(searches[held], 32), (searches[free], 96)], pipeline, in_flight=2,
                           after_batch=after_batch)
    assert not pipeline.mixed, "a batch held candidates of both searches"
    assert searches[held].evaluations == 32 and searches[free].evaluations == 96
    # When the free search had its 4th batch back, the held one had none back and both of its
    # batches still out.
    assert seen_when_free_had_4 == [(0, 2)]
    assert pipeline.arrivals == {held: 2, free: 6}


# -- (b) at most K batches out per search; (c) no genome out twice -------------------------------

def first_k_together(k):
    """The first k batches of each problem (those made at the start, one per slot) are answered
    only once all k have arrived, the k-th first, then the one before it, ...; later ones at
    once."""
    def hold(pipeline, problem, n):
        if n > k:
            return []
        waits = [(pipeline.events("arrived", problem, k), f"{problem} batch {k} arrived")]
        if n < k:
            waits.append((pipeline.events("answered", problem, n + 1), f"{problem} batch {n + 1} answered"))
        return waits
    return hold


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_search_keeps_at_most_k_batches_in_flight_and_reaches_k(k):
    pipeline = OutOfOrderPipeline(per_stage=1000, hold=first_k_together(k))
    c = MapElites(pipeline, seed=2, batch_size=8, problem="dgemm-256")
    cuda = MapElites(pipeline, seed=2, batch_size=8, problem="cuda-hgemm-4096")
    out_at_making, out_at_filing = [], []
    for search in (c, cuda):
        def next_batch(count, search=search, make=search.next_batch):
            batch = make(count)
            out_at_making.append(len(search.in_flight))
            return batch
        search.next_batch = next_batch

    def after_batch(search):
        out_at_filing.append(len(search.in_flight))

    run_searches_in_flight([(c, 64), (cuda, 48)], pipeline, in_flight=k, after_batch=after_batch)
    assert pipeline.most_out == {"dgemm-256": k, "cuda-hgemm-4096": k}
    assert max(out_at_making) == k and max(out_at_filing) <= k - 1
    assert (c.evaluations, cuda.evaluations) == (64, 48) and (c.batches, cuda.batches) == (8, 6)
    assert not c.in_flight and not cuda.in_flight
    order = [n for problem, n, _ in pipeline.answered if problem == "dgemm-256"]
    assert order[0] == k and all(order.index(n) > order.index(n + 1) for n in range(1, k)), \
        "answered out of order: each of the first k after the one made after it"


class BlindToBatchesOut(MapElites):
    """The control: a search that proposes as if no batch were out."""

    def propose(self, count):
        out, self.in_flight = self.in_flight, {}
        try:
            return super().propose(count)
        finally:
            self.in_flight = out


@pytest.mark.parametrize("search_type, twice", [(MapElites, False), (BlindToBatchesOut, True)])
def test_no_genome_is_out_twice_at_once(search_type, twice):
    # A small space (o0, pinned: 112 genomes) and children of elites only, three batches of 12
    # out at once: without the in-flight check (the control) they share genomes.
    pipeline = OutOfOrderPipeline(per_stage=1000, hold=first_k_together(3))
    search = search_type(pipeline, seed=4, batch_size=12, problem="dgemm-256", stage="o0", pin=True,
                         random_fraction=0.0)
    run_searches_in_flight([(search, 144)], pipeline, in_flight=3)
    assert pipeline.most_out["dgemm-256"] == 3 and search.evaluations == 144
    assert bool(pipeline.twice_out) == twice, pipeline.twice_out


def test_batches_made_while_others_are_out_share_no_genome_and_no_id():
    search = MapElites(None, seed=5, batch_size=16, problem="dgemm-256", stage="o0", pin=True, random_fraction=0.0)
    parent = kernels.Genome("ikj")
    search.archive.offer("o0", parent, 1.0, "elite", 1)
    # Every child of the one elite: far fewer than three batches of 16.
    rng = random.Random(0)
    children = {search.family.mutate(parent, rng, "o0") for _ in range(2000)}
    assert len(children) < 32
    batches = [search.next_batch() for _ in range(3)]
    genomes = [genome for batch in batches for _, genome in batch]
    ids = [candidate["id"] for batch in batches for candidate, _ in batch]
    assert len(set(genomes)) == 48 and len(set(ids)) == 48
    assert [batch.number for batch in batches] == [1, 2, 3] and search.outstanding() == 48
    assert ids[16] == "s5-b0002-00"


# -- (d) late results of a stage the search has left ---------------------------------------------

def test_a_batch_answered_late_is_filed_under_the_stage_it_was_scored_in():
    # Batches 1 and 2 run in o0; batch 2 is answered first and moves dgemm-256 to o3, so the
    # search makes batch 3 for o3; batch 1 comes back after, scored in o0 (its rows count
    # toward neither stage). And so on up the ladder: every odd batch is answered late.
    pipeline = OutOfOrderPipeline(per_stage=16, hold=odd_after_even, last={"dgemm-256": 10})
    search = MapElites(pipeline, seed=6, batch_size=16, problem="dgemm-256")
    stage_after_each = []
    run_searches_in_flight([(search, 160)], pipeline, in_flight=2,
                           after_batch=lambda s: stage_after_each.append(s.stage))
    answered = [(n, stage) for _, n, stage in pipeline.answered]
    assert answered[:3] == [(2, "o0"), (1, "o0"), (4, "o3")], "batch 1 answered after batch 2 moved the stage"
    assert search.stage == "blocking"
    # The search's stage never went back, though late batches brought rows of an older stage.
    indices = [C_LADDER.index(stage) for stage in stage_after_each]
    assert indices == sorted(indices) and stage_after_each[1] == "o3"
    late = search.history[16:32]  # filed second: batch 1, in o0, after batch 2 moved the search to o3
    assert {h["id"][:9] for h in late} == {"s6-b0001-"} and {h["stage"] for h in late} == {"o0"}
    # Every row filed under the stage the pipeline scored it in, which is the one it was made
    # for: all ok, none a misfit.
    scored_in = {candidate_id: stage for candidate_id, stage in pipeline_rows(pipeline, search)}
    for h in search.history:
        assert h["stage"] == scored_in[h["id"]] == h["asked_stage"] and h["status"] == "ok", h
    # Their elites are in the archive of their stage: o0 niches from batch 1, filed after o3's.
    o0_ids = {e.candidate_id for e in search.archive.in_stage("o0")}
    assert any(i.startswith("s6-b0001-") for i in o0_ids)
    assert all(stage in kernels.DEFAULT_STAGES and kernels.is_valid(e.genome, stage)
               for (stage, _), e in search.archive.niches.items())
    assert [row[0] for row in search.report()["gflops_over_evaluations"]] == list(range(1, 161))


def pipeline_rows(pipeline, search):
    """(candidate id, the stage the pipeline scored its batch in) of every row the search filed."""
    stage_of_batch = {n: stage for _, n, stage in pipeline.answered}
    for h in search.history:
        yield h["id"], stage_of_batch[number_of(h)]


def test_from_results_alone_an_older_batch_answered_late_does_not_move_the_stage_back():
    search = MapElites(None, seed=7, batch_size=4, problem="dgemm-256")
    older, newer = search.next_batch(), search.next_batch()

    def results(batch, stage):
        return {c["id"]: {"id": c["id"], "status": "ok", "gflops": 1.0, "stage": stage} for c, _ in batch}

    search.take_results(newer, results(newer, "o3"), {})
    assert search.stage == "o3"
    search.take_results(older, results(older, "o0"), {})
    assert search.stage == "o3", "the older batch's o0 rows are filed, the stage stays"
    assert [h["stage"] for h in search.history] == ["o3"] * 4 + ["o0"] * 4
    assert {stage for stage, _ in search.archive.niches} == {"o0", "o3"}
    assert not search.in_flight and search.batches == 2


def test_a_batch_is_made_for_the_newest_stage_the_scorer_knows():
    # Another slot's answer brought o3 (the scorer asked GET /v1/stages), and that slot has not
    # filed it yet: the batch made now is made for o3 all the same.
    from hpcreward_generator.in_flight import _next_batch

    class Scorer:
        current_stages = {"dgemm-256": "o3"}

    search = MapElites(None, seed=9, batch_size=8, problem="dgemm-256")
    assert search.stage == "o0"
    batch = _next_batch(search, Scorer(), wanted=64)
    assert batch.stage == search.stage == "o3" and len(batch) == 8
    assert _next_batch(search, Scorer(), wanted=8) is None, "its 8 evaluations are out already"
    pinned = MapElites(None, seed=9, batch_size=8, problem="dgemm-256", stage="o0", pin=True)
    assert _next_batch(pinned, Scorer(), wanted=64).stage == "o0", "a pinned search stays"


# -- (e) reports after each batch; going on after a stop with batches out -------------------------

def test_after_batch_runs_once_per_batch_one_at_a_time_with_the_batch_filed():
    pipeline = OutOfOrderPipeline(per_stage=16, hold=odd_after_even, last={"dgemm-256": 6, "cuda-sgemm-4096": 5})
    c = MapElites(pipeline, seed=8, batch_size=16, problem="dgemm-256")
    cuda = MapElites(pipeline, seed=8, batch_size=16, problem="cuda-sgemm-4096")
    inside = threading.Lock()
    calls, overlapping = [], []

    def after_batch(search):
        if not inside.acquire(blocking=False):
            overlapping.append(search.problem)
            return
        try:
            report = json.loads(json.dumps(search.report()))
            calls.append((search.problem, report["batches"], report["evaluations"]))
            assert len(report["gflops_over_evaluations"]) == report["evaluations"] == 16 * report["batches"]
        finally:
            inside.release()

    run_searches_in_flight([(c, 96), (cuda, 80)], pipeline, in_flight=2, after_batch=after_batch)
    assert not overlapping
    assert [(b, e) for p, b, e in calls if p == "dgemm-256"] == [(b, 16 * b) for b in range(1, 7)]
    assert [(b, e) for p, b, e in calls if p == "cuda-sgemm-4096"] == [(b, 16 * b) for b in range(1, 6)]


class Stopped(Exception):
    pass


def test_a_search_stopped_with_batches_out_goes_on_from_its_report_under_new_ids():
    # The pipeline stops answering after the 3rd batch (a time limit): the error reaches the
    # caller while a batch is still out; the report holds what was filed, the batch given up is
    # made again by the resumed search, under its new seed.
    class StoppingPipeline(OutOfOrderPipeline):
        def __call__(self, batch):
            with self.lock:
                if sum(self.arrivals.values()) >= 3:
                    raise Stopped("the pipeline is stopping")
            return super().__call__(batch)

    def hold(pipeline, problem, n):  # batch 2 stays out until the stop
        return [(pipeline.events("stopped"), "the stop")] if n == 2 else []

    first = StoppingPipeline(per_stage=16, hold=hold)
    stopped = MapElites(first, seed=1, batch_size=16, problem="dgemm-256")
    reports = []
    try:
        with pytest.raises(Stopped):
            run_searches_in_flight([(stopped, 96)], first, in_flight=2,
                                   after_batch=lambda s: reports.append(json.loads(json.dumps(s.report()))))
        assert len(reports) == 2 and sorted(stopped.in_flight) == [2, 4], "batch 2 out, batch 4 refused"
        report = reports[-1]
    finally:
        first.events("stopped").set()  # lets batch 2's thread end
    assert (report["evaluations"], report["batches"]) == (32, 2)  # batches 1 and 3
    old_ids = {f"s1-b{n:04d}-{i:02d}" for n in (1, 2, 3, 4) for i in range(16)}

    second = OutOfOrderPipeline(per_stage=16, hold=odd_after_even, last={"dgemm-256": 6})
    resumed = MapElites(second, seed=65, batch_size=16, problem="dgemm-256")
    resumed.restore(report)
    assert (resumed.evaluations, resumed.batches, resumed.batches_made) == (32, 2, 2)
    run_searches_in_flight([(resumed, 96)], second, in_flight=2)
    new_ids = [h["id"] for h in resumed.history[32:]]
    assert sorted(new_ids) == sorted(f"s65-b{n:04d}-{i:02d}" for n in (3, 4, 5, 6) for i in range(16))
    assert not old_ids & set(new_ids)
    final = resumed.report()
    assert final["gflops_over_evaluations"][:32] == report["gflops_over_evaluations"]
    assert (final["evaluations"], final["batches"]) == (96, 6)
    assert final["earlier_runs"] == [{"seed": 1, "evaluations": 32, "batches": 2}]


def test_an_error_in_one_search_ends_the_run_at_once():
    # The CUDA search's batch never comes back; the C search's pipeline fails: the error is
    # raised without waiting for the batch that is out.
    never = threading.Event()
    cuda_out = Events()

    def score(batch):
        if batch[0]["problem"].startswith("cuda-"):
            cuda_out(number_of(batch[0])).set()
            never.wait(WAIT_S)
            return []
        wait(cuda_out(1), "the CUDA search's first batch out")
        wait(cuda_out(2), "the CUDA search's second batch out")
        raise Stopped("no answer")

    c = MapElites(score, seed=1, batch_size=8, problem="dgemm-256")
    cuda = MapElites(score, seed=1, batch_size=8, problem="cuda-sgemm-4096")
    try:
        with pytest.raises(Stopped, match="no answer"):
            run_searches_in_flight([(c, 32), (cuda, 32)], score, in_flight=2)
        assert sorted(cuda.in_flight) == [1, 2], "raised with the CUDA batches still out"
    finally:
        never.set()
    assert c.evaluations == 0


def test_in_flight_must_be_positive():
    with pytest.raises(ValueError, match="at least one batch"):
        run_searches_in_flight([], lambda batch: [], in_flight=0)


# -- the served scorer from several threads --------------------------------------------------

def test_the_served_scorer_gives_each_thread_a_client_of_its_own():
    from hpcreward_generator.served_scorer import ServedScorer

    class FakeClient:
        def __init__(self):
            self.batches = []

        def score_candidates(self, candidates):
            self.batches.append(candidates)
            return [{"id": c["id"], "status": "ok", "gflops": 1.0, "stage": "o0"} for c in candidates]

        def stages(self):
            return {"dgemm-256": "o0"}

    made = []
    main_client = FakeClient()
    scorer = ServedScorer(main_client, new_client=lambda: made.append(FakeClient()) or made[-1])
    scorer([{"id": "main", "problem": "dgemm-256", "source": ""}])
    threads = [threading.Thread(target=scorer, args=([{"id": f"t{i}", "problem": "dgemm-256", "source": ""}],))
               for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [[c["id"] for c in b] for b in main_client.batches] == [["main"]]
    assert len(made) == 3 and sorted(c.batches[0][0]["id"] for c in made) == ["t0", "t1", "t2"]
    assert scorer.current_stages == {"dgemm-256": "o0"}


# -- the command's --in-flight ---------------------------------------------------------------

def test_the_command_sends_each_searchs_own_batches_with_in_flight_1(served):  # noqa: F811
    report = served / "generator.json"
    result = generator("--rendezvous", served, "--evaluations", 32, "--cuda-problem", "cuda-sgemm-4096",
                       "--cuda-evaluations", 48, "--seed", 1, "--out", report, "--in-flight", 1)
    assert result.returncode == 0, result.stderr
    assert "each search keeps up to 1 batch of its own in flight" in result.stdout
    batches = sent_batches(served)
    assert sorted(len({c["problem"] for c in batch}) for batch in batches) == [1] * 5
    # One at a time per search: each batch made after the one before it was answered, so each
    # is made for the stage the pipeline then reported (16 candidates a stage in the stand-in).
    cuda = [batch for batch in batches if batch[0]["problem"] == "cuda-sgemm-4096"]
    assert ["__shared__" in batch[0]["source"] for batch in cuda] == [False, True, True]
    assert json.loads((served / "generator-cuda.json").read_text())["evaluations"] == 48


@pytest.mark.parametrize("options, message", [
    (["--in-flight", "0"], "--in-flight must be 1 or more, not 0"),
    (["--in-flight", "2"], "--in-flight is for a served pipeline"),
])
def test_the_command_refuses_an_in_flight_it_cannot_use(options, message):
    result = generator("--evaluations", 16, *options)
    assert result.returncode == 2 and message in result.stderr, result.stderr
