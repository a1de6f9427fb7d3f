#!/usr/bin/python3
"""Discrete-event simulation of one hpcreward coordinator (rank 0) with many benchmark ranks.

Scaling past one machine: the model, the inputs and the results are in docs/reports/scale.md.
Inputs come from tests/perf/scale_sim_inputs.json (measured on this machine by
scale_sim_micro.sh and scale_sim_inputs.py): per-candidate service times drawn from real
reward-log rows, and rank 0's per-message costs.

The coordinator is one single-threaded server that follows its scoring loop:
  - batches are admitted in arrival order, at most --batches-in-flight of them unanswered at
    once (0: every accepted batch; 1: one at a time); admitting a batch puts its tasks at the
    back of its kind's FIFO queue ("cpu" tasks for CPU ranks, "gpu" tasks for GPU ranks);
  - every task that has a rank of its kind with a free slot is dispatched (the front task of
    its kind's queue goes to the rank with room that holds the fewest tasks, ties the one
    whose last task was handed out longest ago, as coordinator/ranks/scheduler.hpp);
  - then, per result: the loop's bookkeeping, decode, MPI receive, one HDF5 row, and the
    batch's answer when it was the batch's last candidate;
  - with no result waiting it sleeps in polls of --poll-s, so a result that lands while it
    sleeps waits until the next probe.
A slot is free again only once rank 0 has processed its result.

Ranks: CPU ranks have one slot and run a task for its service time. GPU ranks have --gpu-slots
slots: --gpu-workers compile at once, then each candidate has the rank's one GPU to itself for
its verification and timing (plus the GPU's per-candidate set-up); GPU utilisation is the GPU's
busy time.

Policies (--mode): "one-at-a-time" (--batches-in-flight 1: the coordinator before batches in
flight; each batch waits for its slowest candidate while the other ranks idle) and "in-flight"
(--batches-in-flight 0: the serve loop now). Trainers: each sends a batch of B candidates,
waits for its answer, spends --gen-s generating, sends the next.

Service times (--service): "old" draws compile_s + verify_s + time_s of the 190 rows the first
model used (samples + generator, 2026-11-24) plus the mean rank overhead; "realistic" draws from
every real CPU reward log found on this machine (scale_sim_inputs.json "straggler": families
weighted equally), a timeout costing the limit it hit, plus the median rank overhead.
--study runs the policies side by side for 100 / 1,000 / 10,000 ranks and several trainer
counts and writes the figure's data (scale_sim_plot.py draws it).

Standard library only. Deterministic for a given --seed.
"""
import argparse
import bisect
import heapq
import itertools
import json
import math
import os
import random
import sys
from collections import deque

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INPUTS = os.path.join(HERE, "scale_sim_inputs.json")
MODES = {"one-at-a-time": 1, "in-flight": 0}  # mode -> --batches-in-flight


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


class ZeroCosts:
    """Rank 0 for free, results seen at once: what the ranks alone allow (tests, hand checks)."""
    dispatch_s = last_scan_s = result_s = poll_s = one_way_s = 0.0


# ---------------------------------------------------------------- service times
def rank_overhead(inputs):
    """Mean per-candidate rank time not in compile_s + verify_s + time_s (extraction, sandbox
    start, messages), from consecutive rows of one rank in the first model's logs ("old")."""
    t = inputs.get("turnaround", {})
    gaps = sum(v.get("gaps", 0) for v in t.values())
    if not gaps:
        return 0.0
    return max(0.0, sum(v["gap_sum_s"] - v["service_sum_s"] for v in t.values()) / gaps)


def old_pool(inputs, scale=1.0, source=None, overhead=None):
    """(values, cumulative weights): the first model's 190 rows, compile + verify + time each."""
    # Rows the coordinator decided alone (rank 0: no code in the completion, duplicate id) never
    # reach a rank; they are left out (docs/reports/scale.md).
    rows = [r for r in inputs["service_samples"]
            if source in (None, "all", r["source"]) and r.get("rank", 1) != 0]
    if not rows:
        raise SystemExit("no service samples for source %r" % source)
    over = rank_overhead(inputs) if overhead is None else overhead
    values = [scale * (r["compile_s"] + r["verify_s"] + r["time_s"]) + over for r in rows]
    return values, list(itertools.accumulate([1.0] * len(values))), {"timeout": [False] * len(values)}


def parse_weights(text):
    out = {}
    for part in (text or "").split(","):
        if part.strip():
            name, w = part.split("=")
            out[name.strip()] = float(w)
    return out


def realistic_pool(inputs, scale=1.0, overhead=None, weights=None, timeout_s=None, timeout_share=None):
    """(values, cumulative weights, extras): real CPU reward-log rows (scale_sim_inputs.json
    "straggler"/"cpu"). A family is drawn by its weight, then one of its rows; a timeout row costs
    what ran before the kill plus the limit it hit (--timeout-s: another limit); --timeout-share:
    timeouts reweighted to this share of the draws."""
    cpu = inputs.get("straggler", {}).get("cpu")
    if not cpu:
        raise SystemExit("no straggler pool in the inputs (tests/perf/scale_sim_inputs.py --cpu-log)")
    fam_w = dict(cpu["weights"])
    fam_w.update(weights or {})
    counts = {}
    for r in cpu["rows"]:
        counts[r[0]] = counts.get(r[0], 0) + 1
    over = cpu["rank_overhead"]["median_s"] if overhead is None else overhead
    values, w, is_timeout = [], [], []
    for fam, status, c, v, t, limit, _ in cpu["rows"]:
        if fam_w.get(fam, 0.0) <= 0:
            continue
        if status == "timeout" and timeout_s is not None:
            limit = timeout_s
        values.append(scale * (c + v + t + limit) + over)
        w.append(fam_w[fam] / counts[fam])
        is_timeout.append(status == "timeout")
    if timeout_share is not None:
        t_sum = sum(x for x, to in zip(w, is_timeout) if to)
        o_sum = sum(x for x, to in zip(w, is_timeout) if not to)
        if t_sum <= 0 and timeout_share > 0:
            raise SystemExit("--timeout-share: the pool has no timeout rows")
        w = [x * (timeout_share / t_sum if to else (1 - timeout_share) / o_sum) if (t_sum if to else o_sum) else 0.0
             for x, to in zip(w, is_timeout)]
    return values, list(itertools.accumulate(w)), {"timeout": is_timeout}


def sampler(pool, rng):
    values, cum = pool[0], pool[1]
    total = cum[-1]
    return lambda: values[bisect.bisect_right(cum, rng.random() * total)]


def gpu_pool(inputs, family=None, scale=1.0):
    """[(compile_s, gpu_s)]: GPU ranks' rows (straggler/gpu); gpu_s = verify + time + the
    family's per-candidate GPU time beyond them (contexts, executor start and end)."""
    gpu = inputs.get("straggler", {}).get("gpu")
    if not gpu:
        raise SystemExit("no GPU pool in the inputs (tests/perf/scale_sim_inputs.py --gpu-console)")
    family = family or gpu["default_family"]
    extra = gpu["families"][family]["gpu_extra_s"]
    rows = [(scale * c, scale * (v + t) + extra) for fam, status, c, v, t in gpu["rows"] if fam == family]
    if not rows:
        raise SystemExit("no GPU rows of family %r" % family)
    return rows


def weighted_pct(values, weights, qs):
    pairs = sorted(zip(values, weights))
    total = sum(weights)
    out, acc, i = {}, 0.0, 0
    for q in sorted(qs):
        target = q / 100.0 * total
        while i < len(pairs) - 1 and acc + pairs[i][1] < target - 1e-12:
            acc += pairs[i][1]
            i += 1
        out[q] = pairs[i][0]
    return out


def describe_pool(pool):
    values, cum, extra = pool
    w = [b - a for a, b in zip([0.0] + cum[:-1], cum)]
    total = sum(w)
    p = weighted_pct(values, w, (50, 90, 99, 99.9))
    mean = sum(v * x for v, x in zip(values, w)) / total
    share = lambda pred: sum(x for v, x in zip(values, w) if pred(v)) / total
    return {"rows": len(values), "mean_s": mean, "p50_s": p[50], "p90_s": p[90], "p99_s": p[99],
            "p99.9_s": p[99.9], "max_s": max(values),
            "timeout_share": sum(x for x, to in zip(w, extra["timeout"]) if to) / total,
            "share_over_1s": share(lambda v: v > 1.0), "share_over_2s": share(lambda v: v > 2.0),
            "p_batch_512_has_timeout": 1 - (1 - sum(x for x, to in zip(w, extra["timeout"]) if to) / total) ** 512}


def pct(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(math.ceil(q / 100.0 * len(v))) - 1 if q > 0 else 0)]


# ---------------------------------------------------------------- the simulation
def simulate(n_ranks, costs, draw, batch=512, trainers=1, batches=10, gen_s=0.0, in_flight=0,
             gpu_ranks=0, draw_gpu=None, gpu_slots=16, gpu_workers=14, gpu_trainers=0, gpu_batch=64,
             timeline_bin=0.0, trace=False):
    """n_ranks CPU ranks (one slot each) and gpu_ranks GPU ranks; `trainers` trainers send CPU
    batches of `batch`, `gpu_trainers` send GPU batches of `gpu_batch`; each trainer sends
    `batches` batches. in_flight: most batches admitted and unanswered at once (0: no limit).
    draw() -> a CPU task's service seconds; draw_gpu() -> (compile_s, gpu_s).
    Returns a dict of metrics (times in seconds of simulated time)."""
    events = []  # (time, order, kind, payload)
    order = itertools.count()

    def push(t, kind, payload=None):
        heapq.heappush(events, (t, next(order), kind, payload))

    n_all = n_ranks + gpu_ranks
    kind_of = ["cpu"] * n_ranks + ["gpu"] * gpu_ranks
    slots = [1] * n_ranks + [max(1, gpu_slots)] * gpu_ranks
    held = [0] * n_all
    last_assigned = [0] * n_all
    version = [0] * n_all
    # Ranks with room, per kind, as the Scheduler orders them: (held, last assigned, index).
    ready = {"cpu": [(0, 0, i, 0) for i in range(n_ranks)], "gpu": [(0, 0, i, 0) for i in range(n_ranks, n_all)]}
    queues = {"cpu": deque(), "gpu": deque()}  # FIFO per kind: (batch key, admission time)
    assignments = 0

    def take_rank(kind):
        h = ready[kind]
        while h:
            _, _, idx, ver = heapq.heappop(h)
            if ver == version[idx]:
                return idx
        return None

    def has_ready(kind):
        h = ready[kind]
        while h and h[0][3] != version[h[0][2]]:
            heapq.heappop(h)
        return bool(h)

    def touch(idx):
        version[idx] += 1
        if held[idx] < slots[idx]:
            heapq.heappush(ready[kind_of[idx]], (held[idx], last_assigned[idx], idx, version[idx]))

    # GPU ranks' insides: compile workers, then the one GPU.
    workers_busy = [0] * gpu_ranks
    compile_q = [deque() for _ in range(gpu_ranks)]
    gpu_busy = [False] * gpu_ranks
    gpu_q = [deque() for _ in range(gpu_ranks)]

    n_trainers = trainers + gpu_trainers
    trainer_kind = ["cpu"] * trainers + ["gpu"] * gpu_trainers
    trainer_size = [batch] * trainers + [gpu_batch] * gpu_trainers
    trainer_batches = [0] * n_trainers
    info = {}  # batch key -> dict
    batch_queue = deque()  # accepted, not yet admitted
    admitted_open = 0
    pending = deque()  # results that reached rank 0: (arrival, rank, key)
    coord_free_at = 0.0
    idle_since = 0.0  # when the coordinator started polling (None: busy or a wake is queued)
    wake_queued = False
    served = {"cpu": 0, "gpu": 0}
    coord_busy = 0.0
    busy_total = {"cpu": 0.0, "gpu": 0.0}
    spans = {"cpu": [], "gpu": []}
    coord_spans = []
    done_times = {"cpu": [], "gpu": []}
    latencies = {"cpu": [], "gpu": []}
    result_waits, dispatch_waits = [], []
    answered = 0
    t_end = 0.0
    last_sent = float("inf")  # when the first trainer sent its last batch: the load falls after
    dispatch_log, task_log = [], []

    def wake_at(t):
        nonlocal wake_queued, idle_since
        if not wake_queued:
            wake_queued = True
            idle_since = None
            push(t, "wake")

    def can_admit():
        return batch_queue and (in_flight <= 0 or admitted_open < in_flight)

    for tr in range(n_trainers):
        push(0.0, "batch", tr)

    while events:
        t, _, kind, payload = heapq.heappop(events)
        if kind == "batch":
            tr = payload
            key = (tr, trainer_batches[tr])
            trainer_batches[tr] += 1
            info[key] = {"kind": trainer_kind[tr], "size": trainer_size[tr], "left": trainer_size[tr], "sent": t,
                         "admitted": None, "answered": None, "last_task_end": 0.0}
            batch_queue.append(key)
            # The HTTP thread hands the batch to the main thread, which is waiting on it (no
            # poll grid for batches: a condition variable) unless it is busy.
            if idle_since is not None:
                wake_at(max(t, coord_free_at))
            continue
        if kind == "result":
            pending.append((t, payload[0], payload[1]))
            if idle_since is not None:
                # Asleep in a poll loop since idle_since: noticed at the next probe.
                k = math.ceil((t - idle_since) / costs.poll_s - 1e-12) if costs.poll_s > 0 else 0
                wake_at(max(t, idle_since + k * costs.poll_s, coord_free_at))
            continue
        if kind == "gpu_arrive":
            idx, key, c, g = payload
            j = idx - n_ranks
            if workers_busy[j] < gpu_workers:
                workers_busy[j] += 1
                push(t + c, "gpu_compiled", (idx, key, g))
            else:
                compile_q[j].append((key, c, g))
            continue
        if kind == "gpu_compiled":
            idx, key, g = payload
            j = idx - n_ranks
            workers_busy[j] -= 1
            if compile_q[j]:
                k2, c2, g2 = compile_q[j].popleft()
                workers_busy[j] += 1
                push(t + c2, "gpu_compiled", (idx, k2, g2))
            if gpu_busy[j]:
                gpu_q[j].append((key, g))
            else:
                gpu_busy[j] = True
                spans["gpu"].append((t, t + g))
                busy_total["gpu"] += g
                push(t + g, "gpu_done", (idx, key))
            continue
        if kind == "gpu_done":
            idx, key = payload
            j = idx - n_ranks
            info[key]["last_task_end"] = max(info[key]["last_task_end"], t)
            push(t + costs.one_way_s, "result", (idx, key))
            if gpu_q[j]:
                k2, g2 = gpu_q[j].popleft()
                spans["gpu"].append((t, t + g2))
                busy_total["gpu"] += g2
                push(t + g2, "gpu_done", (idx, k2))
            else:
                gpu_busy[j] = False
            continue
        # kind == "wake": one pass of the coordinator's loop.
        wake_queued = False
        now = t
        cost = 0.0
        while can_admit():
            key = batch_queue.popleft()
            admitted_open += 1
            b = info[key]
            b["admitted"] = now
            queues[b["kind"]].extend([(key, now)] * b["size"])
        # Dispatch every task that has a rank of its kind with room (FIFO per kind).
        dispatched = 0
        for k in ("cpu", "gpu"):
            q = queues[k]
            while q:
                idx = take_rank(k)
                if idx is None:
                    break
                key, enq = q.popleft()
                cost += costs.dispatch_s
                held[idx] += 1
                assignments += 1
                last_assigned[idx] = assignments
                touch(idx)
                arrive = now + cost + costs.one_way_s
                dispatch_waits.append(now + cost - enq)
                if trace:
                    dispatch_log.append((now + cost, k, key, idx, held[idx]))
                if k == "cpu":
                    service = draw()
                    busy_total["cpu"] += service
                    spans["cpu"].append((arrive, arrive + service))
                    info[key]["last_task_end"] = max(info[key]["last_task_end"], arrive + service)
                    if trace:
                        task_log.append((key, idx, arrive, arrive + service))
                    push(arrive + service + costs.one_way_s, "result", (idx, key))
                else:
                    c, g = draw_gpu()
                    push(arrive, "gpu_arrive", (idx, key, c, g))
                dispatched += 1
        queued_left = bool(queues["cpu"]) or bool(queues["gpu"])
        # Process one result, if one is waiting.
        got_result = bool(pending)
        if (dispatched or queued_left) and not got_result:
            cost += costs.last_scan_s  # the call that finds no free rank (in result_s otherwise)
        if got_result:
            arrived, idx, key = pending.popleft()
            result_waits.append(now + cost - arrived)
            cost += costs.result_s
            held[idx] -= 1
            touch(idx)
            b = info[key]
            served[b["kind"]] += 1
            done = now + cost
            done_times[b["kind"]].append(done)
            b["left"] -= 1
            if b["left"] == 0:
                b["answered"] = done
                admitted_open -= 1
                latencies[b["kind"]].append(done - b["sent"])
                answered += 1
                t_end = max(t_end, done)
                tr = key[0]
                if trainer_batches[tr] < batches:
                    push(done + gen_s, "batch", tr)
                else:
                    last_sent = min(last_sent, b["sent"])
        coord_busy += cost
        if cost > 0:
            coord_spans.append((now, now + cost))
        coord_free_at = now + cost
        more = bool(pending) or can_admit() or any(queues[k] and has_ready(k) for k in ("cpu", "gpu"))
        if more:
            wake_at(coord_free_at)
        else:
            idle_since = coord_free_at  # sleeping in polls from here
        t_end = max(t_end, coord_free_at)

    horizon = t_end if t_end > 0 else 1.0
    # Steady state: from the start to when the first trainer sent its last batch (every trainer
    # still busy); with one batch per trainer, the whole run.
    w1 = last_sent if 0 < last_sent < horizon else horizon

    def overlap(sp, end=w1):
        return sum(max(0.0, min(b, end) - a) for a, b in sp if a < end)

    served_all = served["cpu"] + served["gpu"]
    out = {
        "steady_s": w1,
        "steady_throughput_per_s": sum(1 for k in done_times for d in done_times[k] if d <= w1) / w1,
        "steady_rank_utilisation": overlap(spans["cpu"]) / (n_ranks * w1) if n_ranks else float("nan"),
        "steady_coordinator_utilisation": overlap(coord_spans) / w1,
        "ranks": n_ranks,
        "in_flight": in_flight,
        "mode": {1: "one-at-a-time", 0: "in-flight"}.get(in_flight, "in-flight<=%d" % in_flight),
        "trainers": trainers,
        "batch": batch,
        "batches_answered": answered,
        "candidates_total": sum(batches * s for s in trainer_size),
        "candidates_served": served_all,
        "sim_seconds": horizon,
        "throughput_per_s": served_all / horizon,
        "rank_utilisation": busy_total["cpu"] / (n_ranks * horizon) if n_ranks else float("nan"),
        "coordinator_utilisation": coord_busy / horizon,
        "batch_s_p50": pct(latencies["cpu"], 50),
        "batch_s_p99": pct(latencies["cpu"], 99),
        "result_wait_ms_p50": 1e3 * pct(result_waits, 50),
        "result_wait_ms_p99": 1e3 * pct(result_waits, 99),
        "dispatch_wait_s_p50": pct(dispatch_waits, 50),
        "dispatch_wait_s_p99": pct(dispatch_waits, 99),
    }
    if gpu_ranks:
        out.update({
            "gpu_ranks": gpu_ranks, "gpu_trainers": gpu_trainers, "gpu_batch": gpu_batch,
            "gpu_slots": gpu_slots, "gpu_workers": gpu_workers,
            "steady_gpu_utilisation": overlap(spans["gpu"]) / (gpu_ranks * w1),
            "gpu_utilisation": busy_total["gpu"] / (gpu_ranks * horizon),
            "steady_cpu_throughput_per_s": sum(1 for d in done_times["cpu"] if d <= w1) / w1,
            "steady_gpu_throughput_per_s": sum(1 for d in done_times["gpu"] if d <= w1) / w1,
            "gpu_batch_s_p50": pct(latencies["gpu"], 50),
            "gpu_batch_s_p99": pct(latencies["gpu"], 99),
        })
    if timeline_bin > 0:
        nb = int(math.ceil(horizon / timeline_bin))
        tl = {}
        for k, n in (("cpu", n_ranks), ("gpu", gpu_ranks)):
            if not n:
                continue
            bins = [0.0] * nb
            for a, b in spans[k]:
                i = int(a / timeline_bin)
                while i < nb and i * timeline_bin < b:
                    lo, hi = max(a, i * timeline_bin), min(b, (i + 1) * timeline_bin)
                    bins[i] += max(0.0, hi - lo)
                    i += 1
            tl[k] = [x / (n * timeline_bin) for x in bins]
        out["timeline"] = {"bin_s": timeline_bin, **tl}
    if trace:
        out["trace"] = {"batches": {"%d/%d" % k: v for k, v in info.items()}, "dispatches": dispatch_log,
                        "tasks": task_log}
    return out


def build_pool(inputs, args, service):
    if service == "old":
        return old_pool(inputs, scale=args.service_scale, source=args.service_source, overhead=args.rank_overhead_s)
    if service == "realistic":
        return realistic_pool(inputs, scale=args.service_scale, overhead=args.rank_overhead_s,
                              weights=parse_weights(args.family_weights), timeout_s=args.timeout_s,
                              timeout_share=args.timeout_share)
    raise SystemExit("--service: old or realistic, not %r" % service)


def run_case(inputs, n, args, mode, trainers, batches, seed_offset=0, service=None, gpu_ranks=0, gpu_trainers=0,
             timeline_bin=0.0, batch=None):
    seed = args.seed * 1000003 + n * 31 + seed_offset
    rng, rng_gpu = random.Random(seed), random.Random(seed + 17)
    extra_row_s = inputs.get("unmeasured_row_s", 0.0) if args.extra_row_s is None else args.extra_row_s
    costs = Costs(inputs, n + gpu_ranks, scan_factor=args.scan_factor, append_s=args.append_s, poll_s=args.poll_s,
                  extra_row_s=extra_row_s)
    service = service or args.service
    draw = sampler(build_pool(inputs, args, service), rng)
    draw_gpu = None
    if gpu_ranks:
        rows = gpu_pool(inputs, args.gpu_family, scale=args.gpu_scale)
        draw_gpu = lambda: rows[rng_gpu.randrange(len(rows))]
    out = simulate(n, costs, draw, batch=batch or args.batch, trainers=trainers, batches=batches, gen_s=args.gen_s,
                   in_flight=MODES[mode], gpu_ranks=gpu_ranks, draw_gpu=draw_gpu, gpu_slots=args.gpu_slots,
                   gpu_workers=args.gpu_workers, gpu_trainers=gpu_trainers, gpu_batch=args.gpu_batch,
                   timeline_bin=timeline_bin)
    out["service"] = service
    out["costs"] = costs.describe()
    return out


def fill_trainers(n, batch, load):
    """Trainers that keep n slots fed with batches in flight: load x n candidates out at once."""
    return max(2, math.ceil(load * n / batch) + 1)


def saturation_sweep(inputs, args, grid):
    """Batches in flight, enough trainers to keep every rank fed: where does throughput stop rising?"""
    rows = []
    for n in grid:
        trainers = fill_trainers(n, args.batch, args.load)
        batches = max(4, math.ceil(args.sweep_candidates / (trainers * args.batch)))
        rows.append(run_case(inputs, n, args, "in-flight", trainers, batches))
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


def study_trainers(n, args):
    out = [int(x) for x in args.study_trainers.split(",") if x]
    out.append(fill_trainers(n, args.batch, args.study_load))
    return sorted(set(out))


def study(inputs, args):
    """One batch at a time against batches in flight: ranks x service pools x trainers."""
    rows, mixed = [], []
    for n in [int(x) for x in args.study_ranks.split(",") if x]:
        for service in ("old", "realistic"):
            for mode in ("one-at-a-time", "in-flight"):
                for trainers in study_trainers(n, args):
                    batches = max(args.study_min_batches, math.ceil(args.study_batches / trainers))
                    r = run_case(inputs, n, args, mode, trainers, batches, service=service)
                    r["fill_trainers"] = fill_trainers(n, args.batch, args.study_load)
                    rows.append(r)
                    print("  %6d ranks %-9s %-13s T=%-3d util %.3f  %.0f/s  batch p50 %.2f p99 %.2f s" % (
                        n, service, mode, trainers, r["steady_rank_utilisation"], r["steady_throughput_per_s"],
                        r["batch_s_p50"], r["batch_s_p99"]), file=sys.stderr)
    # Utilisation over time, one run per pool and policy with the figure's trainers.
    figure = []
    for service in ("old", "realistic") if args.figure_trainers > 0 else ():
        for mode in ("one-at-a-time", "in-flight"):
            r = run_case(inputs, args.figure_ranks, args, mode, args.figure_trainers, args.figure_batches,
                         service=service, timeline_bin=args.timeline_bin)
            figure.append({k: r[k] for k in ("ranks", "service", "mode", "trainers", "timeline", "steady_s",
                                             "steady_rank_utilisation", "batch_s_p50", "batch_s_p99")})
    if args.study_gpu_ranks:
        n_cpu = args.figure_ranks - args.study_gpu_ranks
        for mode in ("one-at-a-time", "in-flight"):
            for trainers in [int(x) for x in args.study_mixed_trainers.split(",") if x]:
                batches = max(args.study_min_batches, math.ceil(args.study_batches / trainers))
                r = run_case(inputs, n_cpu, args, mode, trainers, batches, service="realistic",
                             gpu_ranks=args.study_gpu_ranks, gpu_trainers=trainers)
                mixed.append(r)
                print("  mixed %d+%d %-13s T=%d+%d cpu %.3f gpu %.3f" % (
                    n_cpu, args.study_gpu_ranks, mode, trainers, trainers, r["steady_rank_utilisation"],
                    r["steady_gpu_utilisation"]), file=sys.stderr)
    return rows, mixed, figure


# ---------------------------------------------------------------- output
COLS = [("ranks", "%d"), ("mode", "%s"), ("trainers", "%d"), ("throughput_per_s", "%.0f"),
        ("rank_utilisation", "%.3f"), ("coordinator_utilisation", "%.3f"), ("batch_s_p50", "%.2f"),
        ("batch_s_p99", "%.2f"), ("steady_throughput_per_s", "%.0f"), ("steady_rank_utilisation", "%.3f"),
        ("steady_coordinator_utilisation", "%.3f"), ("result_wait_ms_p50", "%.2f"), ("result_wait_ms_p99", "%.2f"),
        ("dispatch_wait_s_p50", "%.3f"), ("dispatch_wait_s_p99", "%.3f")]
STUDY_COLS = [("ranks", "%d"), ("service", "%s"), ("mode", "%s"), ("trainers", "%d"),
              ("steady_rank_utilisation", "%.3f"), ("steady_throughput_per_s", "%.0f"), ("batch_s_p50", "%.2f"),
              ("batch_s_p99", "%.2f"), ("steady_coordinator_utilisation", "%.3f")]
MIXED_COLS = [("ranks", "%d"), ("gpu_ranks", "%d"), ("mode", "%s"), ("trainers", "%d"), ("gpu_trainers", "%d"),
              ("steady_rank_utilisation", "%.3f"), ("steady_gpu_utilisation", "%.3f"),
              ("steady_cpu_throughput_per_s", "%.0f"), ("steady_gpu_throughput_per_s", "%.1f"),
              ("batch_s_p50", "%.2f"), ("batch_s_p99", "%.2f"), ("gpu_batch_s_p50", "%.2f"), ("gpu_batch_s_p99", "%.2f")]


def table(rows, cols=COLS):
    head = "| " + " | ".join(c for c, _ in cols) + " |"
    sep = "|" + "|".join("---" for _ in cols) + "|"
    body = ["| " + " | ".join(f % r[c] for c, f in cols) + " |" for r in rows]
    return "\n".join([head, sep] + body)


def self_test(inputs, args):
    ok = True

    def check(cond, what):
        nonlocal ok
        if not cond:
            ok = False
            print("FAIL:", what)

    args.batch = 64
    for service in ("old", "realistic"):
        prev = None
        for n in (4, 16, 64, 256):
            for mode, trainers in (("one-at-a-time", 2), ("in-flight", 3)):
                r = run_case(inputs, n, args, mode, trainers, 3, service=service)
                check(r["candidates_served"] == r["candidates_total"] == trainers * 3 * 64,
                      "every candidate served once (%s)" % r)
                check(r["batches_answered"] == trainers * 3, "every batch answered")
                check(all(0 <= r[k] <= 1 + 1e-9 for k in ("rank_utilisation", "coordinator_utilisation",
                                                             "steady_rank_utilisation", "steady_coordinator_utilisation")),
                      "utilisations in [0, 1]: %s" % r)
                check(r["result_wait_ms_p50"] >= 0 and r["dispatch_wait_s_p50"] >= 0, "waits >= 0")
            # One at a time, below saturation (N <= batch): more ranks never slower (5% sampling noise).
            r_one = run_case(inputs, n, args, "one-at-a-time", 1, 4, service=service)
            if prev is not None and n <= 64:
                check(r_one["batch_s_p50"] <= prev["batch_s_p50"] * 1.05,
                      "more ranks not slower: %d ranks %.3f s vs %.3f s" % (n, r_one["batch_s_p50"],
                                                                            prev["batch_s_p50"]))
            prev = r_one
    # CPU and GPU ranks together: every candidate of both kinds served, utilisations in [0, 1].
    for mode in MODES:
        r = run_case(inputs, 16, args, mode, 2, 2, service="realistic", gpu_ranks=4, gpu_trainers=2)
        check(r["candidates_served"] == r["candidates_total"] == 2 * 2 * 64 + 2 * 2 * args.gpu_batch,
              "mixed: every candidate served once (%s)" % r)
        check(0 <= r["steady_gpu_utilisation"] <= 1 + 1e-9, "mixed: GPU utilisation in [0, 1]")
    # Determinism.
    a = run_case(inputs, 16, args, "in-flight", 2, 2)
    b = run_case(inputs, 16, args, "in-flight", 2, 2)
    check(a == b, "same seed, same result")
    # The realistic pool: the timeouts cost their limit (2 s at dgemm-256), not the logged columns.
    pool = realistic_pool(inputs)
    d = describe_pool(pool)
    check(0 < d["timeout_share"] < 0.05 and all(v >= 2.0 for v, to in zip(pool[0], pool[2]["timeout"]) if to),
          "timeout rows cost at least their 2 s limit: %s" % d)
    # Zero coordinator cost and a single rank: the batch takes the sum of its service times.
    draws = iter([1.0] * 10)
    r = simulate(1, ZeroCosts(), lambda: next(draws), batch=10, trainers=1, batches=1)
    check(abs(r["batch_s_p50"] - 10.0) < 1e-9 and abs(r["rank_utilisation"] - 1) < 1e-9,
          "one rank, ten 1 s tasks: 10 s, fully used (%s)" % r)
    print("self-test", "passed" if ok else "FAILED")
    return 0 if ok else 1


def add_args(ap):
    ap.add_argument("--inputs", default=DEFAULT_INPUTS, help="measured inputs (scale_sim_inputs.json)")
    ap.add_argument("--ranks", default="100,1000,10000", help="comma-separated rank counts")
    ap.add_argument("--batch", type=int, default=512, help="candidates per GRPO step")
    ap.add_argument("--batches", type=int, default=10, help="steps per trainer")
    ap.add_argument("--trainers", type=int, default=1, help="trainers, each one step in flight")
    ap.add_argument("--gen-s", type=float, default=0.0, help="trainer generation time between steps")
    ap.add_argument("--mode", choices=list(MODES) + ["both"], default="both",
                    help="one-at-a-time (--batches-in-flight 1) or in-flight (0: every accepted batch)")
    ap.add_argument("--service", choices=["old", "realistic"], default="realistic",
                    help="service-time pool: the first model's 190 rows, or every real CPU log's rows with "
                         "timeouts at their limit (docs/reports/scale.md, 2026-11-28)")
    ap.add_argument("--service-source", default="all", help="--service old: samples, generator or all")
    ap.add_argument("--service-scale", type=float, default=1.0, help="multiply every CPU service time")
    ap.add_argument("--rank-overhead-s", type=float, default=None,
                    help="per-candidate rank time beyond compile+verify+time (default: measured from the logs)")
    ap.add_argument("--family-weights", default="",
                    help="--service realistic: FAMILY=W,... (default: every family 1)")
    ap.add_argument("--timeout-s", type=float, default=None,
                    help="--service realistic: what a timeout costs beyond its compile (default: the limit it hit)")
    ap.add_argument("--timeout-share", type=float, default=None,
                    help="--service realistic: timeouts' share of the draws (default: as the weighted logs)")
    ap.add_argument("--gpu-family", default=None, help="GPU rows' family (default: the inputs' default_family)")
    ap.add_argument("--gpu-scale", type=float, default=1.0, help="multiply every GPU compile and GPU time")
    ap.add_argument("--gpu-slots", type=int, default=16, help="tasks a GPU rank holds (16: 14 workers + 2)")
    ap.add_argument("--gpu-workers", type=int, default=14, help="a GPU rank's compile workers")
    ap.add_argument("--gpu-batch", type=int, default=64, help="candidates per GPU trainer's batch")
    ap.add_argument("--scan-factor", type=float, default=1.0, help="scale the O(N) scan costs (0: none)")
    ap.add_argument("--append-s", type=float, default=None, help="override the HDF5 append cost")
    ap.add_argument("--extra-row-s", type=float, default=None,
                    help="unmeasured per-row work at rank 0 (default: the inputs' unmeasured_row_s, what the "
                         "end-to-end rank 0 CPU per candidate adds to the micro-benchmarked parts)")
    ap.add_argument("--poll-s", type=float, default=None, help="override the poll sleep")
    ap.add_argument("--sweep", default="100,200,500,1000,2000,5000,10000,15000,20000,30000",
                    help="rank counts of the in-flight saturation sweep ('' to skip)")
    ap.add_argument("--load", type=float, default=8.0,
                    help="in-flight: trainers = ceil(load * ranks / batch) + 1 (a step lasts as long as its "
                         "slowest candidate, several times the mean, so 8 keeps the ranks fed)")
    ap.add_argument("--sweep-candidates", type=int, default=150000, help="candidates per sweep point")
    ap.add_argument("--study", action="store_true",
                    help="one batch at a time against batches in flight: --study-ranks x both pools x trainers")
    ap.add_argument("--study-ranks", default="100,1000,10000")
    ap.add_argument("--study-trainers", default="1,2,4,8,16",
                    help="trainer counts; the count that fills the ranks (--study-load) is added")
    ap.add_argument("--study-load", type=float, default=8.0, help="--study: fill = ceil(load * ranks / batch) + 1")
    ap.add_argument("--study-batches", type=int, default=40, help="--study: batches in all, at least (per trainer: "
                                                                    "this / trainers)")
    ap.add_argument("--study-min-batches", type=int, default=4, help="--study: batches per trainer, at least")
    ap.add_argument("--figure-ranks", type=int, default=1000, help="--study: ranks whose utilisation over time is kept")
    ap.add_argument("--figure-trainers", type=int, default=16, help="--study: trainers of the runs over time (0: none)")
    ap.add_argument("--figure-batches", type=int, default=20, help="--study: batches per trainer, runs over time")
    ap.add_argument("--timeline-bin", type=float, default=0.25, help="--study: seconds per utilisation bin")
    ap.add_argument("--study-gpu-ranks", type=int, default=64,
                    help="--study: of --figure-ranks, this many are GPU ranks in the mixed runs (0: none)")
    ap.add_argument("--study-mixed-trainers", default="1,4,16", help="--study: CPU and GPU trainers each, mixed runs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write every result here")
    ap.add_argument("--self-test", action="store_true", help="tiny cases and invariant checks (seconds)")


def print_pool(inputs, args):
    for service in ("old", "realistic"):
        d = describe_pool(build_pool(inputs, args, service))
        print("  %-9s %5d rows: mean %.3f s, p50 %.3f, p90 %.3f, p99 %.3f, p99.9 %.3f, max %.3f; timeouts %.2f%%, "
              "> 1 s %.1f%%, > 2 s %.2f%%; a 512-batch holds a timeout with p = %.3f" % (
                  service, d["rows"], d["mean_s"], d["p50_s"], d["p90_s"], d["p99_s"], d["p99.9_s"], d["max_s"],
                  100 * d["timeout_share"], 100 * d["share_over_1s"], 100 * d["share_over_2s"],
                  d["p_batch_512_has_timeout"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_args(ap)
    args = ap.parse_args()
    with open(args.inputs) as f:
        inputs = json.load(f)
    if args.self_test:
        return self_test(inputs, args)
    if args.study:
        print("## Service times (rank overhead included)")
        print_pool(inputs, args)
        rows, mixed, figure = study(inputs, args)
        print("\n## One batch at a time vs batches in flight, batches of %d, gen %.1f s, seed %d" % (
            args.batch, args.gen_s, args.seed))
        print(table(rows, STUDY_COLS))
        if mixed:
            print("\n## CPU and GPU ranks together (realistic CPU pool, GPU family %s)" % (
                args.gpu_family or inputs["straggler"]["gpu"]["default_family"]))
            print(table(mixed, MIXED_COLS))
        if args.json:
            pools = {s: describe_pool(build_pool(inputs, args, s)) for s in ("old", "realistic")}
            with open(args.json, "w") as f:
                json.dump({"args": vars(args), "pools": pools, "rows": rows, "mixed": mixed, "figure": figure}, f,
                          indent=1)
        return 0
    ranks = [int(x) for x in args.ranks.split(",") if x]
    rows = []
    modes = list(MODES) if args.mode == "both" else [args.mode]
    for mode in modes:
        for n in ranks:
            trainers = args.trainers
            if mode == "in-flight":  # enough steps in flight to keep every rank fed
                trainers = max(args.trainers, fill_trainers(n, args.batch, args.load))
            rows.append(run_case(inputs, n, args, mode, trainers, args.batches))
    print("## Batches of %d, service times: %s pool x %.2f, gen %.1f s, seed %d" % (
        args.batch, args.service, args.service_scale, args.gen_s, args.seed))
    print_pool(inputs, args)
    print(table(rows))
    for r in rows:
        c = r["costs"]
        print("  %6d ranks: rank 0 per dispatch %.1f us, per result %.1f us, poll %.1f ms" % (
            r["ranks"], 1e6 * c["dispatch_s"], 1e6 * c["result_s"], 1e3 * c["poll_s"]))
    sweep_rows, saturated = [], None
    if args.sweep:
        sweep_rows, saturated = saturation_sweep(inputs, args, [int(x) for x in args.sweep.split(",") if x])
        print("\n## Saturation sweep (batches in flight, ranks kept fed)")
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
