#!/usr/bin/python3
"""Gathers scale_sim.py's measured inputs into one JSON file (docs/reports/scale.md, "Inputs").

usage: scale_sim_inputs.py --micro micro.json --pingpong pingpong.json
                            --log samples=RUN/rewards.h5 [--log generator=RUN2/rewards.h5]
                            [--rank0-cpu-s SECONDS] [--poll-s SECONDS]
                            [--results-tool BIN/hpcreward-results] --out scale_sim_inputs.json
       scale_sim_inputs.py --base scale_sim_inputs.json
                            --cpu-log FAMILY='GLOB/rewards.h5' [--cpu-log ...]
                            --gpu-console FAMILY='GLOB.console.log' [--gpu-console ...]
                            --out scale_sim_inputs.json

--log rows (the first service-time pool, "old" in scale_sim.py) are read with
`hpcreward-results export` (CSV): every row's status, compile_s, verify_s, time_s, and its rank
and write time (the gap between two rows of one rank bounds the rank's whole turnaround per
candidate, coordinator and sandbox included).

--cpu-log and --gpu-console build the straggler pools (section "straggler", docs/reports/
scale.md's 2026-11-28 section), read with h5py and from GPU ranks' console output:
  cpu: every reward-log row a CPU rank scored, from every log the globs match (identical logs
       once), grouped into families (scale_sim.py draws a family by its weight, then a row). A
       row's service time is compile_s + verify_s + time_s, except a timeout: its columns hold
       only what ran before the kill (compile_s), so the limit it hit, read from its reason
       ("did not return within 2 s", "... = 5 s"), is added; the same rank's next row in the
       log, written that much later, checks it (timeouts.check). The rank-side overhead (not in
       those columns: extraction, sandbox start, messages) is the median of (gap between two
       consecutive rows of one rank in one batch - the later row's service time).
  gpu: every "[gpu N] ID seq=S STATUS ... (compile C s, verify V s, time T s)" line, and each
       rank's "done: the GPU ran candidates X s of Y s": the GPU's own time per candidate beyond
       verify + time (the set-up of its contexts, the executor's start and end) is
       (X - the rank's sum of verify + time) / its rows, per family.
"""
import argparse
import csv
import glob
import hashlib
import io
import json
import math
import re
import statistics
import subprocess
import sys


def min_merge(runs):
    """Field by field minimum of repeated micro-benchmark runs (a shared, noisy machine: the
    minimum is the best estimate of the cost itself; every run is kept beside it)."""
    if isinstance(runs[0], dict):
        return {k: min_merge([r[k] for r in runs]) for k in runs[0]}
    if isinstance(runs[0], (int, float)):
        return min(runs)
    return runs[0]


def pct(values, q):
    """Nearest-rank percentile (as scale_sim.py's)."""
    v = sorted(values)
    if not v:
        return None
    return v[min(len(v) - 1, max(0, math.ceil(q / 100.0 * len(v)) - 1))]


def dist(values):
    if not values:
        return {}
    out = {"n": len(values), "mean": sum(values) / len(values), "max": max(values)}
    out.update({"p%g" % q: pct(values, q) for q in (50, 90, 99, 99.9)})
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in out.items()}


LIMIT_PATTERNS = [re.compile(r"did not return within ([0-9.]+) s"), re.compile(r"= ([0-9.]+) s\b"),
                  re.compile(r"within ([0-9.]+) s"), re.compile(r"after ([0-9.]+) s")]


def timeout_limit(reason):
    """The limit a timeout row hit, from its reason; None when the reason names none."""
    for pattern in LIMIT_PATTERNS:
        m = pattern.search(reason)
        if m:
            return float(m.group(1))
    return None


def text(x):
    return x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)


def cpu_pool(specs):
    """--cpu-log FAMILY=GLOB: CPU ranks' rows from real reward logs (h5py)."""
    import h5py  # only this part needs it (/usr/bin/python3 has it)
    families, rows, seen, checks, overheads = {}, [], {}, [], {}
    for spec in specs:
        fam, pattern = spec.split("=", 1)
        info = families.setdefault(fam, {"logs": [], "duplicates_skipped": [], "rows": 0, "status": {}})
        for path in sorted(glob.glob(pattern)):
            try:
                with h5py.File(path, "r") as f:
                    data = f["rewards"][()]
                    hosts = json.loads(text(f.attrs.get("hosts_json", "[]")))
                    made = "%s, %s" % (text(f.attrs.get("created_utc", "?")), text(f.attrs.get("git_revision", "?"))[:12])
            except (OSError, KeyError) as e:
                print("skipped %s: %s" % (path, e), file=sys.stderr)
                continue
            digest = hashlib.sha256(data.tobytes()).hexdigest()
            if digest in seen:
                info["duplicates_skipped"].append(path)
                continue
            if any(h.get("kind", "cpu") != "cpu" or h.get("null_measurement") for h in hosts):
                print("skipped %s: not real CPU ranks" % path, file=sys.stderr)
                continue
            seen[digest] = path
            info["logs"].append("%s (%d rows; %s)" % (path, len(data), made))
            by_rank = {}
            for r in data:
                status = text(r["status"])
                info["status"][status] = info["status"].get(status, 0) + 1
                if int(r["rank"]) == 0:
                    continue  # decided by rank 0 alone (format error, repeat): never reached a rank
                c, v, t = float(r["compile_s"]), float(r["verify_s"]), float(r["time_s"])
                limit = 0.0
                if status == "timeout":
                    limit = timeout_limit(text(r["reason"]))
                    if limit is None:
                        raise SystemExit("%s: a timeout row whose reason names no limit: %r" % (path, text(r["reason"])))
                row = [fam, status, round(c, 4), round(v, 4), round(t, 4), round(limit, 4), round(c + v + t + limit, 4)]
                rows.append(row)
                info["rows"] += 1
                by_rank.setdefault(int(r["rank"]), []).append((float(r["time"]), text(r["batch_id"]), row))
            for rank_rows in by_rank.values():
                rank_rows.sort(key=lambda x: x[0])
                for (t0, b0, _), (t1, b1, row) in zip(rank_rows, rank_rows[1:]):
                    if b0 != b1:
                        continue  # the rank may have waited for the next batch
                    overheads.setdefault(fam, []).append(t1 - t0 - row[6])
                    if row[1] == "timeout":
                        checks.append({"log": path, "gap_s": round(t1 - t0, 4), "service_s": row[6],
                                       "logged_columns_s": round(row[2] + row[3] + row[4], 4)})
    all_over = [x for v in overheads.values() for x in v]
    return families, rows, checks, {"median_s": round(statistics.median(all_over), 4) if all_over else 0.0,
                                    "per_family_median_s": {k: round(statistics.median(v), 4) for k, v in overheads.items()},
                                    "pairs": len(all_over),
                                    "note": "gap between consecutive rows of one rank in one batch minus the later "
                                            "row's service time; the median (a mean counts a rank's waits)"}


GPU_ROW = re.compile(r"\[gpu (\d+)\] (\S+) seq=\d+ (\S+) .*\(compile ([0-9.]+) s, verify ([0-9.]+) s, time ([0-9.]+) s\)")
GPU_RAN = re.compile(r"\[gpu (\d+)\] done: the GPU ran candidates ([0-9.]+) s of ([0-9.]+) s")
GPU_READY = re.compile(r"\[gpu (\d+)\] ready .*?(\d+) compile workers, (\d+) slots")


def gpu_pool(specs):
    """--gpu-console FAMILY=GLOB: GPU ranks' per-candidate rows and GPU time from console output."""
    families, rows = {}, []
    for spec in specs:
        fam, pattern = spec.split("=", 1)
        info = families.setdefault(fam, {"logs": [], "rows": 0, "status": {}, "gpu_ran_s": 0.0, "verify_time_sum_s": 0.0,
                                         "workers_slots": []})
        for path in sorted(glob.glob(pattern)):
            per_rank, ran = {}, {}
            for line in open(path, errors="replace"):
                m = GPU_ROW.match(line)
                if m:
                    per_rank.setdefault(int(m.group(1)), []).append(
                        (m.group(3), float(m.group(4)), float(m.group(5)), float(m.group(6))))
                m = GPU_RAN.match(line)
                if m:
                    ran[int(m.group(1))] = float(m.group(2))
                m = GPU_READY.match(line)
                if m:
                    info["workers_slots"].append([int(m.group(2)), int(m.group(3))])
            n = sum(len(v) for v in per_rank.values())
            if not n:
                continue
            info["logs"].append("%s (%d rows)" % (path, n))
            for g, rank_rows in per_rank.items():
                if g not in ran:
                    raise SystemExit("%s: gpu %d has rows but no 'the GPU ran candidates' line" % (path, g))
                info["gpu_ran_s"] += ran[g]
                for status, c, v, t in rank_rows:
                    info["verify_time_sum_s"] += v + t
                    info["status"][status] = info["status"].get(status, 0) + 1
                    info["rows"] += 1
                    rows.append([fam, status, c, v, t])
    for info in families.values():
        info["gpu_extra_s"] = round((info["gpu_ran_s"] - info["verify_time_sum_s"]) / info["rows"], 4) if info["rows"] else 0.0
        info["gpu_ran_s"] = round(info["gpu_ran_s"], 3)
        info["verify_time_sum_s"] = round(info["verify_time_sum_s"], 3)
        info["workers_slots"] = sorted(set(map(tuple, info["workers_slots"])))
    return families, rows


def straggler(args):
    out = {}
    if args.cpu_log:
        families, rows, checks, overhead = cpu_pool(args.cpu_log)
        services = [r[6] for r in rows]
        timeouts = [r for r in rows if r[1] == "timeout"]
        out["cpu"] = {
            "row_fields": ["family", "status", "compile_s", "verify_s", "time_s", "limit_s", "service_s"],
            "families": families,
            "weights": {fam: 1.0 for fam in families},
            "weights_note": "scale_sim.py draws a family by these weights, then one of its rows: every family "
                            "counts the same, however many logs it had",
            "rank_overhead": overhead,
            "timeouts": {"rows": len(timeouts), "limits_s": sorted({r[5] for r in timeouts}),
                         "check": checks,
                         "note": "a timeout row's compile_s + verify_s + time_s is what ran before the kill; "
                                 "the limit is added; check: the same rank's next row came gap_s later"},
            "unweighted_service_s": dist(services),
            "unweighted_compile_s": dist([r[2] for r in rows]),
            "rows": rows,
        }
    if args.gpu_console:
        families, rows = gpu_pool(args.gpu_console)
        out["gpu"] = {
            "row_fields": ["family", "status", "compile_s", "verify_s", "time_s"],
            "families": families,
            "default_family": args.gpu_family or (sorted(families)[0] if families else None),
            "model": "a GPU rank holds up to `slots` tasks; `workers` compile at once (compile_s); then one at a time "
                     "on its GPU for verify_s + time_s + the family's gpu_extra_s",
            "rows": rows,
        }
    return out


def dump(obj, path):
    """JSON with every row of the straggler pools on one line."""
    rows = {}

    def strip(o, key=""):
        if isinstance(o, dict):
            return {k: strip(v, k) for k, v in o.items()}
        if key == "rows" and isinstance(o, list) and o and isinstance(o[0], list):
            token = "@@ROWS%d@@" % len(rows)
            rows[token] = ",\n".join("  " + json.dumps(r) for r in o)
            return token
        return o

    body = json.dumps(strip(obj), indent=1)
    for token, block in rows.items():
        body = body.replace('"%s"' % token, "[\n" + block + "\n ]")
    with open(path, "w") as f:
        f.write(body + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", help="start from this inputs file: its micro-benchmarks, ping-pong, poll and --log "
                                   "pools are kept unless given again")
    ap.add_argument("--micro", action="append", help="repeat: the minimum of each number is kept")
    ap.add_argument("--pingpong", action="append", help="repeat: minimum kept")
    ap.add_argument("--cpu-log", action="append", default=[],
                    help="FAMILY=GLOB of real CPU reward logs (rewards.h5) for the straggler pool")
    ap.add_argument("--gpu-console", action="append", default=[],
                    help="FAMILY=GLOB of GPU ranks' console logs for the GPU pool")
    ap.add_argument("--gpu-family", help="the GPU family scale_sim.py uses by default (default: the first by name)")
    ap.add_argument("--log", action="append", default=[], help="NAME=FILE.h5")
    ap.add_argument("--results-tool", default="/work/main/build/bin/hpcreward-results")
    ap.add_argument("--poll-s", type=float, default=0.001,
                    help="the longest sleep of rank 0's result wait while results come (common/wait_backoff.hpp: "
                         "the prompt cap, 1 ms)")
    ap.add_argument("--rank0-cpu-s", type=float, default=None,
                    help="rank 0's CPU per candidate measured end to end (dispatch_bench.py's "
                         "rank0_cpu_us_per_candidate, in seconds): what the micro-benchmarks' parts leave out "
                         "becomes unmeasured_row_s, charged to every result")
    ap.add_argument("--note", default="")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    base = json.load(open(args.base)) if args.base else None
    if not base and not (args.micro and args.pingpong):
        ap.error("--micro and --pingpong are needed without --base")
    samples, turnaround = [], {}
    for spec in args.log:
        name, path = spec.split("=", 1)
        text = subprocess.run([args.results_tool, "export", path], check=True, capture_output=True,
                              text=True).stdout
        rows = list(csv.DictReader(io.StringIO(text)))
        by_rank = {}
        for r in rows:
            samples.append({"source": name, "status": r["status"], "compile_s": float(r["compile_s"]),
                            "verify_s": float(r["verify_s"]), "time_s": float(r["time_s"]), "rank": int(r["rank"])})
            if int(r["rank"]) > 0:
                by_rank.setdefault(int(r["rank"]), []).append(
                    (float(r["time"]), float(r["compile_s"]) + float(r["verify_s"]) + float(r["time_s"])))
        gaps, sums = [], []
        for rank_rows in by_rank.values():
            rank_rows.sort()
            for (t0, _), (t1, s1) in zip(rank_rows, rank_rows[1:]):
                gaps.append(t1 - t0)
                sums.append(s1)
        turnaround[name] = {"rows": len(rows), "gaps": len(gaps), "gap_sum_s": sum(gaps), "service_sum_s": sum(sums),
                            "note": "per rank, consecutive rows: wall gap vs compile+verify+time of the later row"}
    if args.micro and args.pingpong:
        micro = min_merge([json.load(open(p)) for p in args.micro])
        pingpong = min_merge([json.load(open(p)) for p in args.pingpong])
        one_way = min(pingpong["round_trip_s"].values()) / 2.0
        parts_s = (micro["task_encode_s"] + micro["result_decode_s"] + 2 * one_way + micro["append_mean_s"] +
                   micro["loop_per_result_s"]["100"])
        rank0_cpu = args.rank0_cpu_s
        unmeasured = max(0.0, args.rank0_cpu_s - parts_s) if args.rank0_cpu_s else 0.0
        out = {"micro": micro, "micro_runs": [json.load(open(p)) for p in args.micro],
               "rank0_cpu_per_candidate_s": rank0_cpu, "micro_parts_per_candidate_s": parts_s,
               "unmeasured_row_s": unmeasured,
               "pingpong": pingpong, "pingpong_runs": [json.load(open(p)) for p in args.pingpong],
               "poll_s": args.poll_s, "turnaround": turnaround, "note": args.note, "service_samples": samples}
    else:
        out = dict(base)
        if args.log:
            out["service_samples"], out["turnaround"] = samples, turnaround
        if args.note:
            out["note"] = args.note
    if args.cpu_log or args.gpu_console:
        pools = straggler(args)
        out["straggler"] = dict(out.get("straggler", {}), **pools)
    dump(out, args.out)
    print("wrote %s: %d service samples%s" % (
        args.out, len(out["service_samples"]),
        "".join(", %d %s straggler rows" % (len(v["rows"]), k) for k, v in out.get("straggler", {}).items())),
        file=sys.stderr)


if __name__ == "__main__":
    main()
