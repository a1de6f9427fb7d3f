#!/usr/bin/python3
"""Gathers scale_sim.py's measured inputs into one JSON file (docs/reports/scale.md, "Inputs").

usage: scale_sim_inputs.py --micro micro.json --pingpong pingpong.json
                            --log samples=RUN/rewards.h5 [--log generator=RUN2/rewards.h5]
                            [--rank0-cpu-s SECONDS] [--poll-s SECONDS]
                            [--results-tool BIN/hpcreward-results] --out scale_sim_inputs.json

Reward-log rows are read with `hpcreward-results export` (CSV; no h5py here): every row's
status, compile_s, verify_s, time_s, and its rank and write time (the gap between two rows of
one rank bounds the rank's whole turnaround per candidate, coordinator and sandbox included).
"""
import argparse
import csv
import io
import json
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--micro", action="append", required=True, help="repeat: the minimum of each number is kept")
    ap.add_argument("--pingpong", action="append", required=True, help="repeat: minimum kept")
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
    micro = min_merge([json.load(open(p)) for p in args.micro])
    pingpong = min_merge([json.load(open(p)) for p in args.pingpong])
    one_way = min(pingpong["round_trip_s"].values()) / 2.0
    parts_s = (micro["task_encode_s"] + micro["result_decode_s"] + 2 * one_way + micro["append_mean_s"] +
               micro["loop_per_result_s"]["100"])
    unmeasured = max(0.0, args.rank0_cpu_s - parts_s) if args.rank0_cpu_s else 0.0
    out = {"micro": micro, "micro_runs": [json.load(open(p)) for p in args.micro],
           "rank0_cpu_per_candidate_s": args.rank0_cpu_s, "micro_parts_per_candidate_s": parts_s,
           "unmeasured_row_s": unmeasured,
           "pingpong": pingpong, "pingpong_runs": [json.load(open(p)) for p in args.pingpong], "poll_s": args.poll_s, "turnaround": turnaround,
           "note": args.note, "service_samples": samples}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    print("wrote %s: %d service samples" % (args.out, len(samples)), file=sys.stderr)


if __name__ == "__main__":
    main()
