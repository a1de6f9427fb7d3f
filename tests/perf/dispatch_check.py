#!/usr/bin/env python3
"""ctest's check of dispatch_bench.py: a small run (2 null ranks, 5,000 candidates) whose
dispatch.json must hold every field, each a number, and show null ranks' rows as penalised
runtime_error rows that rank 0 announced. It checks the program, not the targets
(those are for dispatch_bench.py at full size on a quiet machine)."""
import json
import math
import os
import subprocess
import sys
import tempfile

# Enough that rank 0 is still scoring when the script has seen the tenth row and stops the ranks
# for the idle window (300 were done before that once the task and result went binary).
CANDIDATES = 5000
FIELDS = ["dispatch_us_per_candidate", "ranks", "candidates", "rss_kb_after_10k", "rss_kb_after_100k",
          "rss_ratio_100k_10k", "idle_cpu_percent"]


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: dispatch_check.py BUILD/bin")
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory(prefix="dispatch_check_") as out:
        subprocess.run([sys.executable, os.path.join(here, "dispatch_bench.py"), "--bin", sys.argv[1], "--out", out,
                        "--ranks", "2", "--candidates", str(CANDIDATES), "--idle-s", "0.5"], check=True)
        with open(os.path.join(out, "dispatch.json")) as f:
            report = json.load(f)
    problems = []
    for field in FIELDS:
        value = report.get(field)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            problems.append(f"{field}: {value!r} is not a number")
    if report.get("ranks") != 2 or report.get("candidates") != CANDIDATES:
        problems.append(f"ranks/candidates: {report.get('ranks')}/{report.get('candidates')}, expected 2/{CANDIDATES}")
    if report.get("row_statuses") != {"runtime_error": CANDIDATES}:
        problems.append(f"row_statuses: {report.get('row_statuses')!r}; null ranks must give runtime_error rows only")
    if not isinstance(report.get("max_reward"), (int, float)) or report["max_reward"] >= 0:
        problems.append(f"max_reward: {report.get('max_reward')!r}; a null measurement must never earn a reward")
    if report.get("null_notice") is not True:
        problems.append("null_notice: the coordinator did not announce its null ranks (NULL MEASUREMENT: ...)")
    machine = report.get("machine")
    if not isinstance(machine, dict) or not isinstance(machine.get("cores"), int) or not machine.get("cpu_model"):
        problems.append(f"machine: {machine!r} lacks cpu_model and cores")
    if problems:
        raise SystemExit("dispatch.json:\n  " + "\n  ".join(problems))
    print("dispatch.json: every field present and numeric")


if __name__ == "__main__":
    main()
