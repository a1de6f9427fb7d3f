#!/usr/bin/python3
"""Discrete-event simulation of one hpcreward coordinator (rank 0) with many benchmark ranks.

Scaling past one machine: the model, the inputs and the results are in docs/reports/scale.md.
Inputs come from tests/perf/scale_sim_inputs.json (measured on this machine by
scale_sim_micro.sh and scale_sim_inputs.py): per-candidate service times (compile_s +
verify_s + time_s of real reward-log rows, bootstrapped) and rank 0's per-message costs.

The coordinator is one single-threaded server that follows coordinator/scoring/scoring_run.cpp's loop:
  - a batch starts: every task that has a free rank is dispatched (each: Scheduler::
    next_assignment's scan over all N ranks + JSON encode + MPI_Isend), plus one last scan;
  - then, per result: the loop's O(N) bookkeeping (RankWatch::overdue, next_deadline,
    Scheduler::running/finished/complete, one more next_assignment scan), JSON decode,
    MPI receive, one HDF5 row appended and flushed, and the next task dispatched if any;
  - with no result waiting it sleeps in 2 ms polls (MPI_Iprobe, sleep_for(kPoll)), so a
    result that lands while it sleeps waits until the next probe.
Ranks have one slot each (CPU ranks). A rank is free again only once rank 0 has processed
its result (the Scheduler counts it busy until complete()).

Modes: "product" scores batches one at a time, in arrival order, as the coordinator does
(coordinator/README.md); "pipelined" (hypothetical) dispatches tasks of queued batches as
soon as ranks are free, which is how the coordinator's own capacity limit shows.
Trainers: each sends a batch of B candidates, waits for its answer, spends --gen-s
generating, sends the next.

Standard library only. Deterministic for a given --seed.
"""
import argparse
import heapq
import json
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INPUTS = os.path.join(HERE, "scale_sim_inputs.json")


# ---------------------------------------------------------------- cost model
def interp(points, n):
    """Piecewise-linear in N through measured (N, seconds) points; beyond the ends, linear in N
    through the nearest point and the origin's slope (an O(N) scan), never below the first."""
    pts = sorted((int(k), float(v)) for k, v in points.items())
    if n <= pts[0][0]:
        return pts[0][1]
    for (n0, v0), (n1, v1) in zip(pts, pts[1:]):
        if n <= n1:
            return v0 + (v1 - v0) * (n - n0) / (n1 - n0)
    n1, v1 = pts[-1]
    return v1 * n / n1


class Costs:
    def __init__(self, inputs, n, scan_factor=1.0, append_s=None, poll_s=None, extra_row_s=0.0):
        m = inputs["micro"]
        rtt = inputs["pingpong"]["round_trip_s"]
        one_way = min(rtt.values()) / 2.0
        self.poll_s = inputs["poll_s"] if poll_s is None else poll_s
        self.one_way_s = one_way
        scan = interp(m["next_assignment_call_s"], n) * scan_factor
        loop = interp(m["loop_per_result_s"], n) * scan_factor
        self.dispatch_s = scan + m["task_encode_s"] + one_way  # one task handed out
        self.last_scan_s = scan  # the next_assignment call that finds nothing
        append = m["append_mean_s"] if append_s is None else append_s
        # One result: the loop's bookkeeping (measured with one dispatch and one failing
        # next_assignment in it: the dispatch is taken out, as dispatches are charged on their
        # own; the failing call stays), decode, receive, log row, unmeasured extras.
        self.result_s = max(loop - scan, 0.0) + m["result_decode_s"] + one_way + append + extra_row_s

    def describe(self):
        return {"dispatch_s": self.dispatch_s, "result_s": self.result_s, "poll_s": self.poll_s,
                "one_way_s": self.one_way_s}


# ---------------------------------------------------------------- service times
def rank_overhead(inputs):
    """Mean per-candidate rank time not in compile_s + verify_s + time_s (extraction, sandbox
    start, messages), from consecutive rows of one rank in the measured logs."""
    t = inputs.get("turnaround", {})
    gaps = sum(v.get("gaps", 0) for v in t.values())
    if not gaps:
        return 0.0
    return max(0.0, sum(v["gap_sum_s"] - v["service_sum_s"] for v in t.values()) / gaps)


def service_sampler(inputs, rng, scale=1.0, source=None, overhead=0.0):
    # Rows the coordinator decided alone (rank 0: no code in the completion, duplicate id) never
    # reach a rank; they are left out (docs/reports/scale.md).
    rows = [r for r in inputs["service_samples"]
            if source in (None, "all", r["source"]) and r.get("rank", 1) != 0]
    if not rows:
        raise SystemExit("no service samples for source %r" % source)
    times = [scale * (r["compile_s"] + r["verify_s"] + r["time_s"]) + overhead for r in rows]
    return lambda: times[rng.randrange(len(times))]


def pct(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(math.ceil(q / 100.0 * len(v))) - 1 if q > 0 else 0)]


# ---------------------------------------------------------------- the simulation
def simulate(n_ranks, costs, draw, batch=512, trainers=1, batches=10, gen_s=0.0, mode="product"):
    """Returns a dict of metrics. Times in seconds of simulated time."""
    events = []  # (time, order, kind, payload)
    order = 0

    def push(t, kind, payload=None):
        nonlocal order
        order += 1
        heapq.heappush(events, (t, order, kind, payload))

    free_ranks = list(range(n_ranks))  # ranks the scheduler may hand a task (not holding one)
    rank_busy = 0.0  # sum of service times (ranks computing)
    coord_busy = 0.0
    task_queue = []  # FIFO of (batch_key, enqueue_time) handed out in order
    tq_head = 0
    batch_queue = []  # product mode: batches waiting to start (FIFO)
    current = None  # product mode: batch being scored
    left = {}  # batch_key -> results still to process
    sent_at = {}  # batch_key -> (trainer, time the trainer sent it)
    pending = []  # results that reached rank 0, FIFO: (arrival_time, rank, batch_key)
    p_head = 0
    coord_free_at = 0.0
    idle_since = 0.0  # when the coordinator started polling (None: busy or a wake is queued)
    wake_queued = False
    served = 0
    served_per_rank = [0] * n_ranks
    sent_per_batch = {}
    batch_times, result_waits, dispatch_waits = [], [], []
    trainer_batches = [0] * trainers
    answered = 0
    t_end = 0.0
    busy_spans, coord_spans, done_times = [], [], []
    last_sent = float("inf")  # when the first trainer sent its last batch: the load falls after

    def wake_at(t):
        nonlocal wake_queued, idle_since
        if not wake_queued:
            wake_queued = True
            idle_since = None
            push(t, "wake")

    def arrive_batch(t, trainer):
        key = (trainer, trainer_batches[trainer])
        trainer_batches[trainer] += 1
        sent_at[key] = (trainer, t)
        left[key] = batch
        sent_per_batch[key] = 0
        if mode == "product":
            batch_queue.append(key)
        else:
            for _ in range(batch):
                task_queue.append((key, t))

    for tr in range(trainers):
        push(0.0, "batch", tr)

    while events:
        t, _, kind, payload = heapq.heappop(events)
        if kind == "batch":
            arrive_batch(t, payload)
            # The HTTP thread hands the batch to the main thread, which is waiting on it (no
            # poll grid for batches: a condition variable) unless it is busy.
            if idle_since is not None:
                wake_at(max(t, coord_free_at))
            continue
        if kind == "result":
            pending.append((t, payload[0], payload[1]))
            if idle_since is not None:
                # Asleep in a 2 ms poll loop since idle_since: noticed at the next probe.
                k = math.ceil((t - idle_since) / costs.poll_s - 1e-12) if costs.poll_s > 0 else 0
                wake_at(max(t, idle_since + k * costs.poll_s, coord_free_at))
            continue
        # kind == "wake": one pass of the coordinator's loop.
        wake_queued = False
        now = t
        cost = 0.0
        if mode == "product" and current is None and batch_queue:
            current = batch_queue.pop(0)
            for _ in range(batch):
                task_queue.append((current, now))
        # Dispatch every task that has a free rank (FIFO).
        dispatched = 0
        while tq_head < len(task_queue) and free_ranks:
            key, enq = task_queue[tq_head]
            tq_head += 1
            rank = free_ranks.pop()
            cost += costs.dispatch_s
            start = now + cost + costs.one_way_s
            dispatch_waits.append(now + cost - enq)
            service = draw()
            rank_busy += service
            busy_spans.append((start, start + service))
            push(start + service + costs.one_way_s, "result", (rank, key))
            dispatched += 1
        # Process one result, if one is waiting.
        got_result = p_head < len(pending)
        if (dispatched or tq_head < len(task_queue)) and not got_result:
            cost += costs.last_scan_s  # the call that finds no free rank (in result_s otherwise)
        if got_result:
            arrived, rank, key = pending[p_head]
            p_head += 1
            result_waits.append(now + cost - arrived)
            cost += costs.result_s
            free_ranks.append(rank)
            served += 1
            served_per_rank[rank] += 1
            done_times.append(now + cost)
            left[key] -= 1
            if left[key] == 0:
                trainer, t_sent = sent_at[key]
                done = now + cost
                batch_times.append(done - t_sent)
                answered += 1
                t_end = max(t_end, done)
                if mode == "product":
                    current = None
                if trainer_batches[trainer] < batches:
                    push(done + gen_s, "batch", trainer)
                else:
                    last_sent = min(last_sent, t_sent)
        coord_busy += cost
        if cost > 0:
            coord_spans.append((now, now + cost))
        coord_free_at = now + cost
        more = p_head < len(pending) or (mode == "product" and current is None and batch_queue) or (
            tq_head < len(task_queue) and free_ranks)
        if more:
            wake_at(coord_free_at)
        else:
            idle_since = coord_free_at  # sleeping in 2 ms polls from here
        t_end = max(t_end, coord_free_at)
        # Compact the FIFOs now and then.
        if p_head > 100000:
            del pending[:p_head]
            p_head = 0
        if tq_head > 100000:
            del task_queue[:tq_head]
            tq_head = 0

    total = trainers * batches * batch
    horizon = t_end if t_end > 0 else 1.0
    # Steady state: from the start to when the first trainer sent its last batch (every trainer
    # still busy); with one batch per trainer, the whole run.
    w1 = last_sent if 0 < last_sent < horizon else horizon

    def overlap(spans):
        return sum(max(0.0, min(b, w1) - a) for a, b in spans if a < w1)

    return {
        "steady_s": w1,
        "steady_throughput_per_s": sum(1 for d in done_times if d <= w1) / w1,
        "steady_rank_utilisation": overlap(busy_spans) / (n_ranks * w1),
        "steady_coordinator_utilisation": overlap(coord_spans) / w1,
        "ranks": n_ranks,
        "mode": mode,
        "trainers": trainers,
        "batch": batch,
        "batches_answered": answered,
        "candidates_total": total,
        "candidates_served": served,
        "served_per_rank_max": max(served_per_rank) if served_per_rank else 0,
        "sim_seconds": horizon,
        "throughput_per_s": served / horizon,
        "rank_utilisation": rank_busy / (n_ranks * horizon),
        "coordinator_utilisation": coord_busy / horizon,
        "batch_s_p50": pct(batch_times, 50),
        "batch_s_p99": pct(batch_times, 99),
        "result_wait_ms_p50": 1e3 * pct(result_waits, 50),
        "result_wait_ms_p99": 1e3 * pct(result_waits, 99),
        "dispatch_wait_s_p50": pct(dispatch_waits, 50),
        "dispatch_wait_s_p99": pct(dispatch_waits, 99),
    }


def run_case(inputs, n, args, mode, trainers, batches, seed_offset=0):
    rng = random.Random(args.seed * 1000003 + n * 31 + seed_offset)
    extra_row_s = inputs.get("unmeasured_row_s", 0.0) if args.extra_row_s is None else args.extra_row_s
    costs = Costs(inputs, n, scan_factor=args.scan_factor, append_s=args.append_s, poll_s=args.poll_s,
                  extra_row_s=extra_row_s)
    overhead = rank_overhead(inputs) if args.rank_overhead_s is None else args.rank_overhead_s
    draw = service_sampler(inputs, rng, scale=args.service_scale, source=args.service_source, overhead=overhead)
    out = simulate(n, costs, draw, batch=args.batch, trainers=trainers, batches=batches, gen_s=args.gen_s,
                   mode=mode)
    out["costs"] = costs.describe()
    return out


def saturation_sweep(inputs, args, grid):
    """Pipelined mode, enough trainers to keep every rank fed: where does throughput stop rising?"""
    rows = []
    for n in grid:
        trainers = max(2, math.ceil(args.load * n / args.batch) + 1)
        batches = max(4, math.ceil(args.sweep_candidates / (trainers * args.batch)))
        rows.append(run_case(inputs, n, args, "pipelined", trainers, batches))
    # Saturated: the first N whose coordinator is busy 80% of the time, or whose throughput
    # grew less than half as much as its ranks did.
    saturated = None
    for prev, row in zip(rows, rows[1:]):
        gain = row["steady_throughput_per_s"] / prev["steady_throughput_per_s"] - 1
        ideal = row["ranks"] / prev["ranks"] - 1
        if row["steady_coordinator_utilisation"] >= 0.8 or gain < 0.5 * ideal:
            saturated = row["ranks"]
            break
    return rows, saturated


# ---------------------------------------------------------------- output
COLS = [("ranks", "%d"), ("mode", "%s"), ("trainers", "%d"), ("throughput_per_s", "%.0f"),
        ("rank_utilisation", "%.3f"), ("coordinator_utilisation", "%.3f"), ("batch_s_p50", "%.2f"),
        ("batch_s_p99", "%.2f"), ("steady_throughput_per_s", "%.0f"), ("steady_rank_utilisation", "%.3f"),
        ("steady_coordinator_utilisation", "%.3f"), ("result_wait_ms_p50", "%.2f"), ("result_wait_ms_p99", "%.2f"),
        ("dispatch_wait_s_p50", "%.3f"), ("dispatch_wait_s_p99", "%.3f")]


def table(rows):
    head = "| " + " | ".join(c for c, _ in COLS) + " |"
    sep = "|" + "|".join("---" for _ in COLS) + "|"
    body = ["| " + " | ".join(f % r[c] for c, f in COLS) + " |" for r in rows]
    return "\n".join([head, sep] + body)


def self_test(inputs, args):
    ok = True

    def check(cond, what):
        nonlocal ok
        if not cond:
            ok = False
            print("FAIL:", what)

    args.batch = 64
    prev = None
    for n in (4, 16, 64, 256):
        for mode, trainers in (("product", 2), ("pipelined", 3)):
            r = run_case(inputs, n, args, mode, trainers, 3)
            check(r["candidates_served"] == r["candidates_total"] == trainers * 3 * 64,
                  "every candidate served once (%s)" % r)
            check(r["batches_answered"] == trainers * 3, "every batch answered")
            check(all(0 <= r[k] <= 1 + 1e-9 for k in ("rank_utilisation", "coordinator_utilisation",
                                                         "steady_rank_utilisation", "steady_coordinator_utilisation")),
                  "utilisations in [0, 1]: %s" % r)
            check(r["result_wait_ms_p50"] >= 0 and r["dispatch_wait_s_p50"] >= 0, "waits >= 0")
        # Product mode, below saturation (N <= batch): more ranks never slower (5% sampling noise).
        r_prod = run_case(inputs, n, args, "product", 1, 4)
        if prev is not None and n <= 64:
            check(r_prod["batch_s_p50"] <= prev["batch_s_p50"] * 1.05,
                  "more ranks not slower: %d ranks %.3f s vs %.3f s" % (n, r_prod["batch_s_p50"],
                                                                        prev["batch_s_p50"]))
        prev = r_prod
    # Determinism.
    a = run_case(inputs, 16, args, "pipelined", 2, 2)
    b = run_case(inputs, 16, args, "pipelined", 2, 2)
    check(a == b, "same seed, same result")
    # Zero coordinator cost and a single rank: the batch takes the sum of its service times.
    class Zero:
        dispatch_s = last_scan_s = result_s = poll_s = one_way_s = 0.0
    draws = iter([1.0] * 10)
    r = simulate(1, Zero(), lambda: next(draws), batch=10, trainers=1, batches=1)
    check(abs(r["batch_s_p50"] - 10.0) < 1e-9 and abs(r["rank_utilisation"] - 1) < 1e-9,
          "one rank, ten 1 s tasks: 10 s, fully used (%s)" % r)
    print("self-test", "passed" if ok else "FAILED")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", default=DEFAULT_INPUTS, help="measured inputs (scale_sim_inputs.json)")
    ap.add_argument("--ranks", default="100,1000,10000", help="comma-separated rank counts")
    ap.add_argument("--batch", type=int, default=512, help="candidates per GRPO step")
    ap.add_argument("--batches", type=int, default=10, help="steps per trainer")
    ap.add_argument("--trainers", type=int, default=1, help="trainers, each one step in flight")
    ap.add_argument("--gen-s", type=float, default=0.0, help="trainer generation time between steps")
    ap.add_argument("--mode", choices=["product", "pipelined", "both"], default="both")
    ap.add_argument("--service-source", default="all", help="samples, generator or all (log rows used)")
    ap.add_argument("--service-scale", type=float, default=1.0, help="multiply every service time")
    ap.add_argument("--rank-overhead-s", type=float, default=None,
                    help="per-candidate rank time beyond compile+verify+time (default: measured from the logs)")
    ap.add_argument("--scan-factor", type=float, default=1.0, help="scale the O(N) scan costs (0: none)")
    ap.add_argument("--append-s", type=float, default=None, help="override the HDF5 append cost")
    ap.add_argument("--extra-row-s", type=float, default=None,
                    help="unmeasured per-row work at rank 0 (default: the inputs' unmeasured_row_s, what the "
                         "end-to-end rank 0 CPU per candidate adds to the micro-benchmarked parts)")
    ap.add_argument("--poll-s", type=float, default=None, help="override the 2 ms poll sleep")
    ap.add_argument("--sweep", default="100,200,500,1000,2000,5000,10000,15000,20000,30000",
                    help="rank counts of the pipelined saturation sweep ('' to skip)")
    ap.add_argument("--load", type=float, default=8.0,
                    help="pipelined mode: trainers = ceil(load * ranks / batch) + 1 (a step lasts as long as its "
                         "slowest candidate, about 6x the mean, so 8 keeps the ranks fed)")
    ap.add_argument("--sweep-candidates", type=int, default=150000, help="candidates per sweep point")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write every result here")
    ap.add_argument("--self-test", action="store_true", help="tiny cases and invariant checks (seconds)")
    args = ap.parse_args()
    with open(args.inputs) as f:
        inputs = json.load(f)
    if args.self_test:
        return self_test(inputs, args)
    ranks = [int(x) for x in args.ranks.split(",") if x]
    rows = []
    modes = ["product", "pipelined"] if args.mode == "both" else [args.mode]
    for mode in modes:
        for n in ranks:
            trainers = args.trainers
            if mode == "pipelined":  # enough steps in flight to keep every rank fed
                trainers = max(args.trainers, math.ceil(args.load * n / args.batch) + 1)
            rows.append(run_case(inputs, n, args, mode, trainers, args.batches))
    overhead = rank_overhead(inputs) if args.rank_overhead_s is None else args.rank_overhead_s
    print("## Batches of %d, service times: %s rows x %.2f + %.3f s rank overhead, gen %.1f s, seed %d" % (
        args.batch, args.service_source, args.service_scale, overhead, args.gen_s, args.seed))
    print(table(rows))
    for r in rows:
        c = r["costs"]
        print("  %6d ranks: rank 0 per dispatch %.1f us, per result %.1f us, poll %.1f ms" % (
            r["ranks"], 1e6 * c["dispatch_s"], 1e6 * c["result_s"], 1e3 * c["poll_s"]))
    sweep_rows, saturated = [], None
    if args.sweep:
        sweep_rows, saturated = saturation_sweep(inputs, args, [int(x) for x in args.sweep.split(",") if x])
        print("\n## Saturation sweep (pipelined, ranks kept fed)")
        print(table(sweep_rows))
        peak = max(sweep_rows, key=lambda r: r["steady_throughput_per_s"])
        print("\ncoordinator saturates at about %s ranks; peak throughput %.0f candidates/s at %d ranks" % (
            saturated if saturated else "> %d" % sweep_rows[-1]["ranks"], peak["steady_throughput_per_s"], peak["ranks"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "rows": rows, "sweep": sweep_rows, "saturated_at": saturated}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
