#!/usr/bin/env python3
"""A node's ranks kept busy: the three figures docs/reports/gpu-runs.md records, in one command
on a GPU machine (about 6 minutes on two H200s).

  python3 tests/gpu/rank_figures.py --out DIR [--gpus G] [--scaling N] [--skip NAME ...] [--only NAME ...]
                                    [--gpu-arg ARG ...]

  scaling  N honest CUDA candidates (default 128) with one GPU rank, then with G (default: every
           GPU, at least 2; with two as well when G is more): the steady rates and each rank's own
           (gpu_corpus.py --scaling).
           Target: G ranks at least 0.95 G times one.
  main     the generator's CUDA search alone: `jobs/local.sh --np 0 --gpus 1 --cuda-evaluations
           64`, then `--gpus G --cuda-evaluations 48G`, first to last row. Target as above.
  mixed    one GPU and 16 cores (`taskset`, the first visible GPU): the CUDA search alone
           (`--np 0 --gpus 1 --cuda-evaluations 64`), the C search alone (`--np 8 --evaluations
           64`), both in one job; first to last row of each kind. Target: each kind within 1.25x
           of its time alone.
  defaults the README's GPU main job as a new user runs it, `jobs/local.sh --gpus 1` (every default:
           the launcher's CPU ranks, 160 evaluations of each search), then each search alone with
           the same ranks: the CUDA search (`--np 0 --gpus 1`), the C search (`--np N`, N the CPU
           ranks the launcher chose beside the GPU rank). Targets: each search's rate (rows a
           second, first to last) at least 0.90 of its rate alone; the main job within 180 s.

Prints each run and a table of the figures against their targets; DIR/figures.json keeps them and
DIR/phases.txt each GPU rank's phase lines. Exit 0 when every run finished with every row it
was asked for (a figure short of its target is reported, not an error).
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gpu_corpus import REPO, read_rows, scaling_runs  # noqa: E402

MIXED_CORES = 16
RANKS_TARGET = 0.95  # of G times one rank
MIXED_TARGET = 1.25
DEFAULTS_TARGET = 0.90  # of each search's rate alone
DEFAULTS_WALL_S = 180


def spans(rows):
    """Per kind of rank ('cuda' or 'cpu'): rows, seconds from the first row to the last, rate."""
    times = {}
    for r in rows:
        times.setdefault("cuda" if str(r["device"]).startswith("cuda") else "cpu", []).append(r["time"])
    out = {}
    for kind, t in times.items():
        span = max(t) - min(t)
        out[kind] = {"rows": len(t), "first_to_last_s": span, "per_s": (len(t) - 1) / span if span > 0 else None}
    return out


def judged(name, value, target, higher_is_better):
    """One figure against its target: met, not met, or not measured."""
    met = None if value is None else (value >= target if higher_is_better else value <= target)
    return {"figure": name, "value": value, "target": target, "higher_is_better": higher_is_better,
            "verdict": "not measured" if met is None else ("met" if met else "not met")}


def gpu_count():
    done = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return sum(1 for line in done.stdout.splitlines() if line.startswith("GPU "))


def local_job(out, arguments, env=None, cores=None):
    """`jobs/local.sh ARGUMENTS --out OUT` (under `taskset -c CORES` if given): exit, wall, rows."""
    shutil.rmtree(out, ignore_errors=True)  # local.sh refuses an existing log
    command = [str(REPO / "jobs" / "local.sh"), *arguments, "--out", str(out)]
    if cores:
        command = ["taskset", "-c", cores, *command]
    start = time.monotonic()
    with open(out.parent / (out.name + ".console.log"), "w") as console:
        done = subprocess.run(command, stdout=console, stderr=subprocess.STDOUT, env=env, timeout=1500)
    wall = time.monotonic() - start
    log = out / "rewards.h5"
    rows = read_rows(log) if log.exists() else []
    print(f"{out.name}: {' '.join(arguments)}: exit {done.returncode}, wall {wall:.0f} s, "
          + ", ".join(f"{kind} {s['rows']} rows, first to last {s['first_to_last_s']:.1f} s"
                      for kind, s in sorted(spans(rows).items())))
    return {"exit": done.returncode, "wall_s": wall, "rows": len(rows), "spans": spans(rows)}


def ratio(numerator, denominator):
    return numerator / denominator if numerator and denominator else None


def main_job_figure(out, gpus, gpu_args):
    extra = [a for arg in gpu_args for a in ("--gpu-arg", arg)]
    one = local_job(out / "main-1", ["--np", "0", "--gpus", "1", "--cuda-evaluations", "64", *extra])
    many = local_job(out / f"main-{gpus}", ["--np", "0", "--gpus", str(gpus), "--cuda-evaluations", str(48 * gpus),
                                            *extra])
    complete = one["rows"] == 64 and many["rows"] == 48 * gpus and one["exit"] == many["exit"] == 0
    value = ratio(many["spans"].get("cuda", {}).get("per_s"), one["spans"].get("cuda", {}).get("per_s"))
    return {"runs": {"1": one, str(gpus): many}}, [judged(f"main job, {gpus} GPUs / 1", value, RANKS_TARGET * gpus, True)], complete


def mixed_figure(out, gpu_args):
    cores = f"0-{min(MIXED_CORES, os.cpu_count()) - 1}"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": visible}
    extra = [a for arg in gpu_args for a in ("--gpu-arg", arg)]
    cuda = local_job(out / "mixed-cuda", ["--np", "0", "--gpus", "1", "--cuda-evaluations", "64", *extra], env, cores)
    c = local_job(out / "mixed-c", ["--np", "8", "--evaluations", "64"], env, cores)
    both = local_job(out / "mixed-both", ["--np", "8", "--gpus", "1", "--evaluations", "64", "--cuda-evaluations", "64",
                                          *extra], env, cores)
    complete = all(run["exit"] == 0 for run in (cuda, c, both)) and cuda["rows"] == c["rows"] == 64 and both["rows"] == 128
    span = lambda run, kind: run["spans"].get(kind, {}).get("first_to_last_s")
    figures = [judged("mixed node: CUDA search beside the C search / alone", ratio(span(both, "cuda"), span(cuda, "cuda")),
                      MIXED_TARGET, False),
               judged("mixed node: C search beside the CUDA search / alone", ratio(span(both, "cpu"), span(c, "cpu")),
                      MIXED_TARGET, False)]
    return {"cores": cores, "gpu": visible, "runs": {"cuda": cuda, "c": c, "both": both}}, figures, complete


def default_cpu_ranks(gpus):
    """The CPU ranks `jobs/local.sh` starts beside `gpus` GPU ranks when --np is not given."""
    bench = pathlib.Path(os.environ.get("HPCREWARD_BIN", REPO / "build" / "bin")) / "hpcreward-bench"
    done = subprocess.run([str(bench), "--default-cpu-ranks", str(gpus)], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[0])


def defaults_figure(out):
    both = local_job(out / "defaults-both", ["--gpus", "1"])
    cuda = local_job(out / "defaults-cuda", ["--np", "0", "--gpus", "1"])
    np = default_cpu_ranks(1)
    c = local_job(out / "defaults-c", ["--np", str(np)])
    complete = all(run["exit"] == 0 for run in (both, cuda, c)) and both["rows"] == 320 and cuda["rows"] == c["rows"] == 160
    rate = lambda run, kind: run["spans"].get(kind, {}).get("per_s")
    figures = [judged("defaults: CUDA search's rate in the main job / alone", ratio(rate(both, "cuda"), rate(cuda, "cuda")),
                      DEFAULTS_TARGET, True),
               judged(f"defaults: C search's rate in the main job / alone ({np} CPU ranks)",
                      ratio(rate(both, "cpu"), rate(c, "cpu")), DEFAULTS_TARGET, True),
               judged("defaults: the main job's wall time, s (not a ratio)", both["wall_s"], DEFAULTS_WALL_S, False)]
    return {"cpu_ranks": np, "runs": {"both": both, "cuda": cuda, "c": c}}, figures, complete


def phase_lines(out):
    lines = []
    for console in sorted(out.glob("**/*.console.log")):
        kept = [line for line in console.read_text(errors="replace").splitlines()
                if "] per candidate, " in line and line.startswith("[gpu ")]
        if kept:
            lines += [f"-- {console.relative_to(out)}", *kept]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--gpus", type=int, default=0, help="GPU ranks to compare with one (default: every GPU)")
    parser.add_argument("--scaling", type=int, default=128, metavar="N")
    names = ["scaling", "main", "mixed", "defaults"]
    parser.add_argument("--skip", action="append", default=[], choices=names)
    parser.add_argument("--only", action="append", default=[], choices=names, help="run these figures alone")
    parser.add_argument("--gpu-arg", action="append", default=[])
    args = parser.parse_args()
    if args.only:
        args.skip = [name for name in names if name not in args.only]
    args.out.mkdir(parents=True, exist_ok=True)
    gpus = args.gpus or max(2, gpu_count())
    report, figures, complete = {"gpus": gpus}, [], True
    if "scaling" not in args.skip:
        scaling, failed = scaling_runs(args.out, args.scaling, gpus, args.gpu_arg)
        report["scaling"] = scaling
        figures.append(judged(f"scaling, {gpus} GPU ranks / 1 (steady)", scaling["steady_ratio"], RANKS_TARGET * gpus, True))
        complete &= not failed
    if "main" not in args.skip:
        report["main"], judged_main, done = main_job_figure(args.out, gpus, args.gpu_arg)
        figures += judged_main
        complete &= done
    if "mixed" not in args.skip:
        report["mixed"], judged_mixed, done = mixed_figure(args.out, args.gpu_arg)
        figures += judged_mixed
        complete &= done
    if "defaults" not in args.skip:
        report["defaults"], judged_defaults, done = defaults_figure(args.out)
        figures += judged_defaults
        complete &= done
    report["figures"] = figures
    (args.out / "figures.json").write_text(json.dumps(report, indent=1, default=str))
    (args.out / "phases.txt").write_text(phase_lines(args.out))
    print("| figure | value | target | verdict |\n| --- | ---: | ---: | --- |")
    for f in figures:
        unit = "" if f["figure"].endswith("(not a ratio)") else "x"
        value = "-" if f["value"] is None else f"{f['value']:.3f}{unit}"
        print(f"| {f['figure']} | {value} | {'>=' if f['higher_is_better'] else '<='} {f['target']:.2f}{unit} | {f['verdict']} |")
    if not complete:
        print("rank_figures: a run failed or lost rows (see its .console.log in the output folder)", file=sys.stderr)
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
