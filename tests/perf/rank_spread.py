#!/usr/bin/env python3
"""One node, one reward: the same honest kernels scored on every CPU rank of this node many
times, and how far their GFLOPS and `fraction` rewards differ across ranks and within one.

  python3 tests/perf/rank_spread.py --out DIR [--np N] [--copies C] [--bin DIR]

Kernels (dgemm-256, each in a stage that allows what it uses): the plain i-k-j loop (`ikj.c`,
o3), AVX-512 intrinsics (`ikj_avx512.c`, avx512) and a blocked AVX-512 OpenMP kernel
(`blocked_avx512_openmp.c`, blocking), from train_bridge/samples/c/. Each is sent C times
(default 8 per rank), interleaved, a comment apart so that no copy is answered from the cache,
through one `jobs/local.sh --candidates ... --reward-mode fraction` run (--np N: default, the
launcher's own). Per kernel it reports each rank's median GFLOPS and fraction, the spread
across ranks (the largest rank median over the smallest) and within a rank (the largest over
the smallest row of one rank, the worst rank). Target: across ranks <= 1.05 for GFLOPS and for
fraction. DIR/spread.json keeps the table and the rows; exit 1 when a row is not `ok` or a rank
scored none of a kernel (a spread short of its target is reported, not an error).
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = REPO / "train_bridge" / "samples" / "c"
PROBLEM = "dgemm-256"
KERNELS = {"ikj": ("ikj.c", "o3"), "ikj_avx512": ("ikj_avx512.c", "avx512"),
           "blocked_avx512_openmp": ("blocked_avx512_openmp.c", "blocking")}
TARGET = 1.05


def candidate_lines(copies):
    """Every kernel `copies` times, interleaved, each copy a comment apart."""
    sources = {name: (SAMPLES / file).read_text() for name, (file, _) in KERNELS.items()}
    return [{"id": f"{name}#{copy}", "problem": PROBLEM, "stage": KERNELS[name][1], "batch_id": f"spread-{copy}",
             "source": f"// rank_spread copy {copy}\n" + sources[name]}
            for copy in range(copies) for name in KERNELS]


def kernel_of(candidate_id):
    return candidate_id.split("#", 1)[0]


def ratio(values):
    return max(values) / min(values) if values and min(values) > 0 else None


def spread(rows):
    """Per kernel: each rank's rows, medians and the spreads across and within ranks."""
    table = {}
    for name in KERNELS:
        mine = [r for r in rows if kernel_of(r["candidate_id"]) == name and r["status"] == "ok"]
        ranks = sorted({r["rank"] for r in mine})
        per_rank = {}
        for rank in ranks:
            gflops = [r["gflops"] for r in mine if r["rank"] == rank]
            fraction = [r["reward"] for r in mine if r["rank"] == rank]
            per_rank[rank] = {"rows": len(gflops), "gflops_median": statistics.median(gflops),
                              "fraction_median": statistics.median(fraction),
                              "gflops_within": ratio(gflops), "fraction_within": ratio(fraction),
                              "yardstick_median": statistics.median(r["openblas_gflops"] for r in mine if r["rank"] == rank)}
        within = lambda key: max((v[key] for v in per_rank.values() if v[key] is not None), default=None)
        table[name] = {"stage": KERNELS[name][1], "ranks": per_rank,
                       "gflops_across": ratio([v["gflops_median"] for v in per_rank.values()]),
                       "fraction_across": ratio([v["fraction_median"] for v in per_rank.values()]),
                       "yardstick_across": ratio([v["yardstick_median"] for v in per_rank.values()]),
                       "gflops_within": within("gflops_within"), "fraction_within": within("fraction_within")}
    return table


def print_table(table, np_):
    show = lambda v: "-" if v is None else f"{v:.3f}"
    print(f"{PROBLEM} on {np_} CPU ranks; max/min of the ranks' medians (across) and of one rank's rows (within, "
          f"the worst rank); target across <= {TARGET}")
    print(f"{'kernel':<24}{'stage':<10}{'GFLOPS across':>15}{'fraction across':>17}{'yardstick across':>18}"
          f"{'GFLOPS within':>15}{'fraction within':>17}")
    for name, k in table.items():
        print(f"{name:<24}{k['stage']:<10}{show(k['gflops_across']):>15}{show(k['fraction_across']):>17}"
              f"{show(k['yardstick_across']):>18}{show(k['gflops_within']):>15}{show(k['fraction_within']):>17}")
        for rank, v in k["ranks"].items():
            print(f"    rank {rank}: {v['rows']} rows, {v['gflops_median']:.2f} GFLOPS, fraction {v['fraction_median']:.3f},"
                  f" yardstick {v['yardstick_median']:.1f}")


def run_pipeline(out, candidates, np_, bin_dir):
    command = [str(REPO / "jobs" / "local.sh"), "--candidates", str(candidates), "--reward-mode", "fraction",
               "--out", str(out)]
    if np_ is not None:
        command += ["--np", str(np_)]
    start = time.monotonic()
    with open(out.parent / (out.name + ".console.log"), "w") as console:
        done = subprocess.run(command, stdout=console, stderr=subprocess.STDOUT, timeout=3600,
                              env={**os.environ, "HPCREWARD_BIN": str(bin_dir)})
    return done.returncode, time.monotonic() - start


def read_rows(log, bin_dir):
    text = subprocess.run([str(bin_dir / "hpcreward-results"), "export", str(log), "--format", "jsonl"],
                          check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--np", type=int, help="CPU ranks (default: jobs/local.sh's)")
    parser.add_argument("--copies", type=int, help="copies of each kernel (default 8 per rank)")
    parser.add_argument("--bin", type=pathlib.Path, default=REPO / "build" / "bin")
    args = parser.parse_args()
    if args.out.exists():
        parser.error(f"{args.out} exists: choose a new --out")
    args.out.mkdir(parents=True)
    np_ = args.np
    if np_ is None:
        np_ = int(subprocess.run([str(args.bin / "hpcreward-bench"), "--default-cpu-ranks", "0"], check=True,
                                 capture_output=True, text=True).stdout)
    copies = args.copies or 8 * np_
    candidates = args.out / "candidates.jsonl"
    candidates.write_text("".join(json.dumps(line) + "\n" for line in candidate_lines(copies)))
    rc, wall_s = run_pipeline(args.out / "run", candidates, args.np, args.bin)
    log = args.out / "run" / "rewards.h5"
    rows = read_rows(log, args.bin) if log.exists() else []
    table = spread(rows)
    print_table(table, np_)
    not_ok = [r["candidate_id"] for r in rows if r["status"] != "ok"]
    missing = [name for name, k in table.items() if len(k["ranks"]) < np_]
    report = {"problem": PROBLEM, "np": np_, "copies": copies, "exit": rc, "wall_s": wall_s, "target": TARGET,
              "kernels": table, "not_ok": not_ok, "kernels_not_on_every_rank": missing,
              "rows": [{k: r[k] for k in ("candidate_id", "rank", "status", "gflops", "reward", "openblas_gflops", "time")}
                       for r in rows]}
    (args.out / "spread.json").write_text(json.dumps(report, indent=1) + "\n")
    if rc != 0 or not_ok or missing or len(rows) != len(KERNELS) * copies:
        print(f"rank_spread: exit {rc}, {len(rows)} of {len(KERNELS) * copies} rows, not ok: {not_ok[:5]}, "
              f"kernels not on every rank: {missing}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
