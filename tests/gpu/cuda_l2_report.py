#!/usr/bin/env python3
"""A scored run of CUDA-L2's kernels (cuda_l2_candidates.py's candidates) beside CUDA-L2's own
published speedups, as Markdown tables for docs/reports/answers.md.

  hpcreward-results export RUN/rewards.h5 --format jsonl > rows.jsonl
  python3 tests/gpu/cuda_l2_report.py rows.jsonl [--eval-results DIR]

For each folder's rows (fp32 accumulation: the `l2-MxNxK-{nt,nn}` problems, CUDA-L2's
h100_F32F16F16F32; fp16 accumulation: `-f16acc`, their a100_F16F16F16F16): the verdicts with how
many of each have wgmma and TMA among the techniques read from their SASS, every row that is not
`ok` with its reason, and every `ok` row's TFLOPS beside cuBLAS's and cuBLASLt's from the same rank
and run (the row's cublas_gflops, cublaslt_gflops) and the published speedups at the same shape
(eval_results/cuda_l2_<gpu>_<config>_speedup_offline.csv: cuBLAS-max and
cuBLASLt-auto-tuning-max). --eval-results defaults to .gpu-deps/cuda_l2/eval_results, which
`cuda_l2_candidates.py --fetch-from` fills.
"""
import argparse
import collections
import csv
import json
import pathlib
import re
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cuda_l2_candidates import DEPS, F16ACC  # noqa: E402

PUBLISHED = {"f32": "cuda_l2_h100_F32F16F16F32_speedup_offline.csv",
             "f16": "cuda_l2_a100_F16F16F16F16_speedup_offline.csv"}
FOLDER_OF = {"f32": "h100_F32F16F16F32", "f16": "a100_F16F16F16F16"}
PROBLEM = re.compile(r"^l2-(\d+)x(\d+)x(\d+)-(nt|nn)(-f16acc)?$")
BIG_TFLOPS = 100.0  # "large shapes": where launch and dispatch no longer dominate either side


def accumulation(problem):
    return "f16" if problem.endswith(F16ACC) else "f32"


def shape(problem):
    m, n, k, _, _ = PROBLEM.match(problem).groups()
    return int(m), int(n), int(k)


def published_speedups(path):
    """{(m, n, k): (over cuBLAS-max, over cuBLASLt-auto-tuning-max)} from one of their CSVs."""
    table = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            m, n, k = map(int, row["mnk"].split("_"))
            table[(m, n, k)] = (float(row["cuBLAS-max"]), float(row["cuBLASLt-auto-tuning-max"]))
    return table


def hopper_native(row):
    techniques = set(row["techniques"].split("+"))
    return {"wgmma", "tma"} <= techniques


def spread(values):
    values = sorted(values)
    return f"{values[0]:.2f} to {values[-1]:.2f} (median {statistics.median(values):.2f})" if values else "none"


def report(rows, eval_results):
    out = []
    for acc in ("f32", "f16"):
        mine = sorted((r for r in rows if PROBLEM.match(r["problem"]) and accumulation(r["problem"]) == acc),
                      key=lambda r: shape(r["problem"]))
        if not mine:
            continue
        csv_path = pathlib.Path(eval_results) / PUBLISHED[acc]
        published = published_speedups(csv_path) if csv_path.exists() else {}
        out.append(f"### {FOLDER_OF[acc]} ({acc} accumulation): {len(mine)} rows\n")
        out.append("| verdict | count | with wgmma and TMA |\n| --- | --- | --- |")
        verdicts = collections.Counter(r["status"] for r in mine)
        for status, count in verdicts.most_common():
            native = sum(1 for r in mine if r["status"] == status and hopper_native(r))
            out.append(f"| `{status}` | {count} | {native} |")
        refused = [r for r in mine if r["status"] != "ok"]
        if refused:
            out.append("\n| problem | verdict | reason |\n| --- | --- | --- |")
            for r in refused:
                out.append(f"| `{r['problem']}` | `{r['status']}` | {r['reason'].replace('|', chr(92) + '|')} |")
        out.append("\n| problem | techniques | TFLOPS | cuBLAS | cuBLASLt | over cuBLAS, harness | "
                   "over cuBLASLt, harness | over cuBLAS-max, published | over cuBLASLt-auto-tuning-max, published |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        ok = [r for r in mine if r["status"] == "ok"]
        ours_blas, ours_lt, theirs_blas, theirs_lt, big_ours, big_theirs = [], [], [], [], [], []
        for r in ok:
            over_blas = r["gflops"] / r["cublas_gflops"] if r["cublas_gflops"] else float("nan")
            over_lt = r["gflops"] / r["cublaslt_gflops"] if r["cublaslt_gflops"] else float("nan")
            theirs = published.get(shape(r["problem"]))
            ours_blas.append(over_blas)
            ours_lt.append(over_lt)
            if theirs:
                theirs_blas.append(theirs[0])
                theirs_lt.append(theirs[1])
            if r["gflops"] / 1e3 > BIG_TFLOPS:
                big_ours.append(over_blas)
                if theirs:
                    big_theirs.append(theirs[0])
            techniques = r["techniques"].replace("+wgmma+tma", "+**wgmma+tma**")
            published_cells = f"{theirs[0]:.2f} | {theirs[1]:.2f}" if theirs else "- | -"
            out.append(f"| `{r['problem']}` | {techniques} | {r['gflops'] / 1e3:.1f} | {r['cublas_gflops'] / 1e3:.1f} | "
                       f"{r['cublaslt_gflops'] / 1e3:.1f} | {over_blas:.2f} | {over_lt:.2f} | {published_cells} |")
        out.append(f"\nOver the {len(ok)} `ok` kernels: through the harness {spread(ours_blas)} of cuBLAS and "
                   f"{spread(ours_lt)} of cuBLASLt; published {spread(theirs_blas)} over cuBLAS-max and "
                   f"{spread(theirs_lt)} over cuBLASLt-auto-tuning-max"
                   + ("" if published else f" (no {csv_path}: published columns empty)") + ".")
        if big_ours:
            out.append(f"At the {len(big_ours)} above {BIG_TFLOPS:.0f} TFLOPS: harness {spread(big_ours)} of cuBLAS, "
                       f"published {spread(big_theirs)} over cuBLAS-max.")
        out.append("")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=pathlib.Path, help="the run's rows (hpcreward-results export --format jsonl)")
    parser.add_argument("--eval-results", type=pathlib.Path, default=DEPS / "eval_results",
                        help="CUDA-L2's eval_results/ folder (default: .gpu-deps/cuda_l2/eval_results)")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.rows.read_text().splitlines() if line.strip()]
    text = report(rows, args.eval_results)
    if not text:
        print(f"cuda_l2_report: no row of {args.rows} is of a cuda-l2 problem", file=sys.stderr)
        return 1
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
