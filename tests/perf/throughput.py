#!/usr/bin/env python3
"""Per-core throughput: hpcreward (one CPU rank) against the plain loop, interleaved.

Runs PAIRS pairs, each hpcreward then the plain loop, both pinned to the same single core
(`taskset -c CPU jobs/local.sh --np 1 ...`: coordinator, rank, compiles and timed children all
share that core, as the plain loop's compiles and harness runs do). Per run it reports two
rates, candidates scored per second on that one core:
  - with start-up: candidates / wall seconds from launch to exit (mpirun, rank start-up and the
    rank's peak measurement included for hpcreward; the harness build for the plain loop);
  - steady state: (candidates - 1) / (last finish - first finish): hpcreward's from the rows'
    write times in the log (`hpcreward-results export`), the plain loop's from its own clock.
The pipeline scores every line; the plain loop skips the hostile (pipeline_only) lines.

  /usr/bin/python3 tests/perf/throughput.py --bin build/bin --corpus DIR/mixed.jsonl --pairs 3 \
      --out DIR/throughput-mixed
Writes OUT/throughput.json (per run and the medians) and each run's files under OUT/.
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]


def steady_rate(times):
    times = sorted(times)
    if len(times) < 2 or times[-1] <= times[0]:
        return None
    return (len(times) - 1) / (times[-1] - times[0])


def statuses(values):
    counts = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def run_pipeline(args, run_dir):
    env = dict(os.environ, HPCREWARD_BIN=str(pathlib.Path(args.bin).resolve()),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    command = ["taskset", "-c", str(args.cpu), str(REPO / "jobs" / "local.sh"), "--candidates", args.corpus,
               "--ladder", args.ladder, "--np", "1", "--out", str(run_dir)]
    began = time.time()
    with open(str(run_dir) + ".log", "w") as log:
        code = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=REPO).returncode
    wall = time.time() - began
    if code != 0:
        raise RuntimeError(f"jobs/local.sh exited {code} (log: {run_dir}.log)")
    exported = subprocess.run([str(pathlib.Path(args.bin) / "hpcreward-results"), "export",
                               str(run_dir / "rewards.h5"), "--format", "jsonl"],
                              capture_output=True, text=True, check=True).stdout
    rows = [json.loads(text) for text in exported.splitlines() if text.strip()]
    return {"candidates": len(rows), "wall_s": wall, "per_s_with_startup": len(rows) / wall,
            "per_s_steady": steady_rate([row["time"] for row in rows]),
            "first_result_after_s": min(row["time"] for row in rows) - began if rows else None,
            "statuses": statuses(row["status"] for row in rows),
            "by_id": {row["candidate_id"]: row["status"] for row in rows}}


def run_plain(args, run_dir):
    report = run_dir.with_suffix(".json")
    command = [sys.executable, str(HERE / "plain_loop.py"), "--corpus", args.corpus, "--ladder", args.ladder,
               "--cpu", str(args.cpu), "--work", str(run_dir), "--json", str(report)]
    if args.kinds:
        command += ["--kinds", args.kinds]
    began = time.time()
    subprocess.run(command, check=True, cwd=REPO)
    wall = time.time() - began
    plain = json.loads(report.read_text())
    return {"candidates": plain["candidates"], "skipped_pipeline_only": len(plain["skipped_pipeline_only"]),
            "wall_s": wall, "per_s_with_startup": plain["candidates"] / wall,
            "per_s_steady": steady_rate(plain["finished_at"]), "statuses": plain["statuses"],
            "first_result_after_s": plain["finished_at"][0] - began if plain["finished_at"] else None,
            "by_id": {r["id"]: r["status"] for r in plain["results"]}}


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    return a / b if a is not None and b else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(REPO / "build" / "bin"), help="the built executables")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--kinds", help="default: the corpus's .kinds.json when there is one")
    ap.add_argument("--ladder", default=str(REPO / "stages" / "demo_ladder.json"))
    ap.add_argument("--pairs", type=int, default=3, help="interleaved (hpcreward, plain loop) pairs")
    ap.add_argument("--cpu", type=int, help="the one core both run on (default: the last allowed one)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.pairs < 1:
        ap.error("--pairs must be at least 1")
    allowed = sorted(os.sched_getaffinity(0))
    args.cpu = allowed[-1] if args.cpu is None else args.cpu
    if args.cpu not in allowed:
        ap.error(f"--cpu {args.cpu} is not one of this process's CPUs {allowed}")
    args.corpus = str(pathlib.Path(args.corpus).resolve())
    kinds = pathlib.Path(args.corpus).with_suffix(".kinds.json")
    if args.kinds is None and kinds.exists():
        args.kinds = str(kinds)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    pipeline, plain = [], []
    for pair in range(args.pairs):
        try:
            pipeline.append(run_pipeline(args, out / f"hpcreward-{pair}"))
            plain.append(run_plain(args, out / f"plain-{pair}"))
        except (RuntimeError, subprocess.CalledProcessError) as error:
            print(f"throughput.py: pair {pair} failed: {error}", file=sys.stderr)
            return 1
        print(f"pair {pair}: hpcreward {pipeline[-1]['per_s_steady']:.2f}/s steady, "
              f"plain loop {plain[-1]['per_s_steady']:.2f}/s steady", flush=True)

    # Where both scored a line, do they agree? (the plain loop is a fair bar only if it does the same job)
    disagree = sorted(cid for cid, status in plain[0]["by_id"].items()
                      if pipeline[0]["by_id"].get(cid) not in (None, status))
    result = {"corpus": args.corpus, "cpu": args.cpu, "pairs": args.pairs,
              "hpcreward": [{k: v for k, v in run.items() if k != "by_id"} for run in pipeline],
              "plain_loop": [{k: v for k, v in run.items() if k != "by_id"} for run in plain],
              "status_disagreements": {cid: {"hpcreward": pipeline[0]["by_id"][cid], "plain_loop": plain[0]["by_id"][cid]}
                                       for cid in disagree}}
    for kind in ("per_s_steady", "per_s_with_startup"):
        a, b = median(run[kind] for run in pipeline), median(run[kind] for run in plain)
        result[f"hpcreward_{kind}"], result[f"plain_loop_{kind}"] = a, b
        result[f"ratio_{kind}"] = ratio(a, b)
        result[f"pair_ratios_{kind}"] = [ratio(p[kind], q[kind]) for p, q in zip(pipeline, plain)]
    (out / "throughput.json").write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
