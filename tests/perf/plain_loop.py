#!/usr/bin/env python3
"""The plain evaluation loop: the per-core bar that hpcreward must beat.

Per candidate of a JSON Lines corpus (train_bridge/samples format): take the code (`source`, or the
first fenced block of `completion`), `gcc` it with its stage's flags into a shared object, then
run a fresh process (plain_loop_harness.c) that loads it, checks one call against OpenBLAS and
times 11 calls. No sandbox, no static checks, no odd check shapes. Everything runs on one core
(this process pins itself; children inherit it). Limits, since a plain loop needs some too:
`timeout 10` on each harness run (a hang costs 10 s) and `timeout 60` on each compile.
Lines that the corpus's kinds file marks `pipeline_only` (hostile code) are skipped, never run.

  /usr/bin/python3 tests/perf/plain_loop.py --corpus mixed.jsonl --kinds mixed.kinds.json \
      --ladder stages/demo_ladder.json --cpu 1 --work /tmp/plain --json plain.json

The JSON report: counts by status, wall seconds (start-up included), the time each candidate
finished (for the steady-state rate) and each candidate's result.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
HARNESS_SOURCE = HERE / "plain_loop_harness.c"
FENCE = re.compile(r"```[A-Za-z0-9_+-]*\n(.*?)```", re.S)
SHAPES = {"dgemm-256": (256, 256, 256)}


def die(message):
    print(f"plain_loop.py: {message}", file=sys.stderr)
    sys.exit(2)


def stage_flags(ladder_path):
    ladder = json.loads(pathlib.Path(ladder_path).read_text())
    return {stage["name"]: stage["flags"] for stage in ladder["stages"] if stage.get("language", "c") == "c"}


def candidate_code(line):
    if "source" in line:
        return line["source"]
    blocks = FENCE.findall(line.get("completion", ""))
    return blocks[0] if blocks else None


def build_harness(work):
    binary = work / "plain_loop_harness"
    subprocess.run(["gcc", "-O2", "-o", str(binary), str(HARNESS_SOURCE), "-lopenblas", "-ldl", "-lm"],
                   check=True)
    return binary


def parse_harness(completed):
    if completed.returncode == 124:
        return {"status": "timeout", "reason": "ran past the plain loop's 10 s limit"}
    lines = completed.stdout.strip().splitlines()
    if completed.returncode != 0 or not lines:
        return {"status": "runtime_error", "reason": f"exit status {completed.returncode}"}
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError:
        return {"status": "runtime_error", "reason": "unreadable harness output"}


def evaluate(line, flags, harness, work, args, seed):
    code = candidate_code(line)
    if code is None or "matmul" not in code or "\0" in code:
        return {"status": "format_error", "reason": "no code with matmul"}
    source, library = work / "candidate.c", work / "candidate.so"
    source.write_text(code)
    library.unlink(missing_ok=True)
    compiled = subprocess.run(["timeout", str(args.compile_timeout), "gcc", *flags, "-fPIC", "-shared",
                               "-o", str(library), str(source), "-lm"], capture_output=True, text=True)
    if compiled.returncode != 0:
        errors = [text for text in compiled.stderr.splitlines() if "error" in text]
        return {"status": "compile_error", "reason": errors[0] if errors else f"gcc exit {compiled.returncode}"}
    m, n, k = SHAPES[line.get("problem", "dgemm-256")]
    # One OpenBLAS thread: the reference runs on the loop's one core, no thread pool to start.
    ran = subprocess.run(["timeout", str(args.timeout), str(harness), str(library), str(m), str(n), str(k),
                          str(seed)], capture_output=True, text=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    return parse_harness(ran)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True, help="candidates, JSON Lines")
    ap.add_argument("--kinds", help="id -> {kind, pipeline_only} (corpus_*.py); pipeline_only lines are skipped")
    ap.add_argument("--ladder", default=str(REPO / "stages" / "demo_ladder.json"), help="stage flags")
    ap.add_argument("--stage", default="open", help="stage of lines that name none")
    ap.add_argument("--cpu", type=int, help="the one core to run on (default: the last allowed one)")
    ap.add_argument("--timeout", type=int, default=10, help="seconds per harness run")
    ap.add_argument("--compile-timeout", type=int, default=60, help="seconds per compile")
    ap.add_argument("--work", required=True, help="scratch folder")
    ap.add_argument("--json", required=True, help="write the report here")
    args = ap.parse_args()

    began = time.time()
    allowed = sorted(os.sched_getaffinity(0))
    cpu = allowed[-1] if args.cpu is None else args.cpu
    if cpu not in allowed:
        die(f"--cpu {cpu} is not one of this process's CPUs {allowed}")
    os.sched_setaffinity(0, {cpu})
    try:
        flags = stage_flags(args.ladder)
        kinds = json.loads(pathlib.Path(args.kinds).read_text()) if args.kinds else {}
        lines = [json.loads(text) for text in pathlib.Path(args.corpus).read_text().splitlines() if text.strip()]
    except (OSError, json.JSONDecodeError, KeyError) as error:
        die(f"cannot read the ladder, kinds or corpus: {error}")
    if any("id" not in line for line in lines):
        die(f"{args.corpus}: every line needs an id")
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    harness = build_harness(work)

    results, skipped, finished_at = [], [], []
    for index, line in enumerate(lines):
        if kinds.get(line["id"], {}).get("pipeline_only"):
            skipped.append(line["id"])
            continue
        stage = line.get("stage", args.stage)
        if stage not in flags:
            die(f"line {line['id']}: stage {stage!r} is not a C stage of {args.ladder}")
        result = evaluate(line, flags[stage], harness, work, args, seed=1000 + index)
        finished_at.append(time.time())
        results.append({"id": line["id"], **result})

    statuses = {}
    for result in results:
        statuses[result["status"]] = statuses.get(result["status"], 0) + 1
    report = {"corpus": args.corpus, "cpu": cpu, "candidates": len(results), "skipped_pipeline_only": skipped,
              "statuses": statuses, "started_at": began, "wall_s": time.time() - began,
              "finished_at": finished_at, "timeout_s": args.timeout, "results": results}
    pathlib.Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
