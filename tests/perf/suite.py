#!/usr/bin/env python3
"""The benchmark suite's driver (run.sh builds, then calls this): runs every part of
suite_parts.py, writes OUT/bench.json and OUT/report.md. A part that fails or is missing gets
null fields and an error in the report; the suite goes on. --check then verifies that every
field exists (and that every part whose program exists produced its figures), not the targets.

  /usr/bin/python3 tests/perf/suite.py --mode quick --bin build/bin --out DIR [--check]
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import platform
import subprocess
import sys
import time
from types import SimpleNamespace

import suite_parts
import suite_report

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
FULL_SWEEP = "100,200,500,1000,2000,5000,10000,15000,20000,30000,40000"

# mode -> how much each part runs (check: tiny, only to see that each measurement works)
MODES = {
    "full": dict(mixed_pairs=3, grpo_pairs=3, grpo_groups=6, tiny_corpora=False, fidelity=(5, 10),
                 endpoint=(64, 64, 2), scale=(FULL_SWEEP, 150000), limit_s=3600, parallel=False),
    "quick": dict(mixed_pairs=1, grpo_pairs=2, grpo_groups=3, tiny_corpora=False, fidelity=(1, 10),
                  endpoint=(16, 16, 1), scale=("100,1000,5000,10000,20000,30000,40000", 20000), limit_s=400, parallel=False),
    "check": dict(mixed_pairs=1, grpo_pairs=1, grpo_groups=1, tiny_corpora=True, fidelity=(1, 2),
                  endpoint=(2, 2, 1), scale=("100,200", 2000), limit_s=120, parallel=True),
}


def text_of(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, cwd=REPO).stdout.strip()
    except OSError:
        return ""


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    mem_kb = next(int(line.split()[1]) for line in pathlib.Path("/proc/meminfo").read_text().splitlines()
                  if line.startswith("MemTotal"))
    return {"cpu_model": cpu, "cpus": os.cpu_count(), "memory_gib": round(mem_kb / 2**20, 1),
            "kernel": platform.release(), "host": platform.node(),
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()]}


def git_revision():
    revision = text_of(["git", "rev-parse", "HEAD"])
    dirty = text_of(["git", "status", "--porcelain"])
    return revision + ("+uncommitted" if dirty else "")


def check(bench, only):
    problems = []
    for name, (_, fields) in suite_parts.PARTS.items():
        if name not in only:
            continue
        program_missing = name == "dispatch" and not (HERE / "dispatch_bench.py").exists()
        if name in bench["errors"]:
            if not program_missing:
                problems.append(f"part {name} failed: {bench['errors'][name]}")
            continue
        for field in fields:
            # saturation_ranks may be null: no saturation within the (tiny) sweep
            if not isinstance(bench.get(field), (int, float)) and field != "saturation_ranks":
                problems.append(f"part {name} ran but bench.json's {field} is not a number")
    for field in ("machine", "git_revision", "mode"):
        if field not in bench:
            problems.append(f"bench.json lacks {field}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=sorted(MODES), default="full")
    ap.add_argument("--bin", default=str(REPO / "build" / "bin"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", help="comma-separated parts to run (default all: %s)" % ",".join(suite_parts.PARTS))
    ap.add_argument("--check", action="store_true", help="fail unless every field exists and every part ran")
    args = ap.parse_args()
    only = args.only.split(",") if args.only else list(suite_parts.PARTS)
    unknown = [name for name in only if name not in suite_parts.PARTS]
    if unknown:
        ap.error(f"unknown part(s) {', '.join(unknown)}; the parts are {', '.join(suite_parts.PARTS)}")
    out = pathlib.Path(args.out).resolve()
    (out / "logs").mkdir(parents=True, exist_ok=True)
    cfg = SimpleNamespace(mode=args.mode, bin=pathlib.Path(args.bin).resolve(), out=out, **MODES[args.mode])

    bench = {"mode": args.mode, "machine": machine(), "git_revision": git_revision(),
             "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "errors": {}, "seconds": {}}
    details = {}

    def run_part(name):
        part, _ = suite_parts.PARTS[name]
        began = time.time()
        print(f"suite: {name} ...", flush=True)
        try:
            values, details[name] = part(cfg)
            bench.update(values)
        except suite_parts.PartError as error:
            bench["errors"][name] = str(error)
            print(f"suite: {name} failed: {error}", flush=True)
        bench["seconds"][name] = round(time.time() - began, 1)

    for name, (_, fields) in suite_parts.PARTS.items():
        bench.update({field: None for field in fields})
        if name not in only:
            bench["errors"][name] = "not run (--only)"
    chosen = [name for name in suite_parts.PARTS if name in only]
    if cfg.parallel:
        # --check judges no timing, so its parts may share the cores: it stays well under 2 minutes.
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(chosen) or 1) as pool:
            list(pool.map(run_part, chosen))
    else:
        for name in chosen:  # one at a time: timed parts must not share cores
            run_part(name)
    (out / "bench.json").write_text(json.dumps(bench, indent=1) + "\n")
    (out / "report.md").write_text(suite_report.render(bench, details))
    print(f"suite: wrote {out / 'bench.json'} and {out / 'report.md'}")
    if args.check:
        problems = check(bench, only)
        for problem in problems:
            print("CHECK FAILED:", problem)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
