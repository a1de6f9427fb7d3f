"""scale_sim.py's policies, on cases whose answers are known (no sampling, no timing).

"one-at-a-time" (--batches-in-flight 1) admits a batch once the one before it was answered;
"in-flight" (0) admits every batch as it comes, its tasks behind the earlier batches' tasks of
their kind, each batch answered when its own last task is done (coordinator/README.md,
"Batches in flight")."""
import itertools
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scale_sim  # noqa: E402

ONE, ALL = scale_sim.MODES["one-at-a-time"], scale_sim.MODES["in-flight"]


def cycle(values):
    it = itertools.cycle(values)
    return lambda: next(it)


def run(n, draws, in_flight, **kw):
    return scale_sim.simulate(n, scale_sim.ZeroCosts(), cycle(draws), in_flight=in_flight, trace=True, **kw)


def test_two_batches_by_hand():
    # Two ranks; batch A (trainer 0) has tasks of 1 s and 4 s, batch B (trainer 1) two of 1 s.
    draws = [1.0, 4.0, 1.0, 1.0]
    one = run(2, draws, ONE, batch=2, trainers=2, batches=1)
    b = one["trace"]["batches"]
    assert (b["0/0"]["answered"], b["1/0"]["answered"]) == (4.0, 5.0)  # B waits for A's straggler
    assert b["1/0"]["admitted"] == 4.0
    assert abs(one["rank_utilisation"] - 7 / (2 * 5)) < 1e-12
    many = run(2, draws, ALL, batch=2, trainers=2, batches=1)
    b = many["trace"]["batches"]
    # B's tasks take the rank A's short task left: B is answered first, at 3 s; A at 4 s.
    assert (b["0/0"]["answered"], b["1/0"]["answered"]) == (4.0, 3.0)
    assert abs(many["rank_utilisation"] - 7 / (2 * 4)) < 1e-12


def test_fixed_times_in_flight_uses_ranks_at_least_as_well():
    for n, batch, trainers, draws in [(4, 8, 2, [0.5, 1.0, 3.0]), (10, 16, 3, [1.0, 1.0, 1.0, 6.0]),
                                      (50, 64, 4, [0.2, 0.3, 2.5, 0.4, 0.1]), (7, 5, 8, [1.0, 2.0])]:
        kw = dict(batch=batch, trainers=trainers, batches=5)
        one, many = run(n, draws, ONE, **kw), run(n, draws, ALL, **kw)
        assert many["candidates_served"] == one["candidates_served"] == trainers * 5 * batch
        assert many["rank_utilisation"] >= one["rank_utilisation"] - 1e-12, (n, many, one)
        assert many["sim_seconds"] <= one["sim_seconds"] + 1e-12
        if trainers > 1 and n > 1:
            assert many["rank_utilisation"] > one["rank_utilisation"]


def traced_mixed(in_flight, seed=3):
    inputs = json.load(open(scale_sim.DEFAULT_INPUTS))
    rng, rng_gpu = random.Random(seed), random.Random(seed + 1)
    draw = scale_sim.sampler(scale_sim.realistic_pool(inputs), rng)
    gpu_rows = scale_sim.gpu_pool(inputs)
    costs = scale_sim.Costs(inputs, 24)
    return scale_sim.simulate(20, costs, draw, batch=16, trainers=3, batches=4, in_flight=in_flight, gpu_ranks=4,
                              draw_gpu=lambda: gpu_rows[rng_gpu.randrange(len(gpu_rows))], gpu_slots=3,
                              gpu_workers=2, gpu_trainers=2, gpu_batch=8, trace=True)


def test_each_batch_answered_after_its_last_task_and_only_then():
    for in_flight in (ONE, ALL):
        r = traced_mixed(in_flight)
        batches = r["trace"]["batches"]
        assert len(batches) == r["batches_answered"] == 5 * 4
        for key, b in batches.items():
            assert b["sent"] <= b["admitted"] <= b["answered"], key
            assert b["answered"] >= b["last_task_end"] > b["admitted"], key


def test_one_at_a_time_admits_a_batch_once_the_one_before_was_answered():
    r = traced_mixed(ONE)
    spans = sorted((b["admitted"], b["answered"]) for b in r["trace"]["batches"].values())
    for (_, answered), (admitted, _) in zip(spans, spans[1:]):
        assert admitted >= answered


def test_tasks_leave_in_admission_order_per_kind():
    r = traced_mixed(ALL)
    batches = r["trace"]["batches"]
    rank_of = {key: (b["admitted"], key) for key, b in batches.items()}
    for kind in ("cpu", "gpu"):
        order = [rank_of["%d/%d" % key] for _, k, key, _, _ in r["trace"]["dispatches"] if k == kind]
        assert order == sorted(order), kind
    # With batches in flight, a later batch is answered before an earlier one at least once here.
    answered = [b["answered"] for _, b in sorted(batches.items(), key=lambda kv: kv[1]["admitted"])]
    assert answered != sorted(answered)


def test_gpu_ranks_fill_one_slot_each_first_and_never_exceed_their_slots():
    rows = [(2.0, 0.5)]
    r = scale_sim.simulate(0, scale_sim.ZeroCosts(), None, trainers=0, batches=1, gpu_ranks=2,
                           draw_gpu=lambda: rows[0], gpu_slots=3, gpu_workers=2, gpu_trainers=1, gpu_batch=8,
                           trace=True)
    d = r["trace"]["dispatches"]
    assert [(rank, held) for _, _, _, rank, held in d[:6]] == [(0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3)]
    assert all(held <= 3 for *_, held in d)
    # Each rank: two workers compile its first two tasks (0-2 s), the third waits for a worker
    # (2-4 s); the GPU runs the first at 2-2.5 s and the second at 2.5-3 s. The first result
    # frees a slot on each rank at 2.5 s: the 7th and 8th tasks (one per rank) compile 2.5-4.5 s
    # on the worker left idle; each GPU runs its third task at 4-4.5 s and the last at 4.5-5 s.
    assert r["trace"]["batches"]["0/0"]["answered"] == 5.0
    assert r["candidates_served"] == 8


def test_same_seed_same_study_row():
    inputs = json.load(open(scale_sim.DEFAULT_INPUTS))
    import argparse
    ap = argparse.ArgumentParser()
    scale_sim.add_args(ap)
    args = ap.parse_args([])
    a = scale_sim.run_case(inputs, 200, args, "in-flight", 3, 4, service="realistic", timeline_bin=1.0)
    b = scale_sim.run_case(inputs, 200, args, "in-flight", 3, 4, service="realistic", timeline_bin=1.0)
    assert a == b
    assert all(0 <= x <= 1 + 1e-9 for x in a["timeline"]["cpu"])
