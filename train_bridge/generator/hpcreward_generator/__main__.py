"""python3 -m hpcreward_generator --evaluations 300 --batch-size 16 --seed 1 --out report.json"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

from . import kernels
from .map_elites import MapElites


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="hpcreward_generator",
                                     description="MAP-Elites over parametric C matmul candidates, "
                                                 "scored by the hpcreward pipeline")
    parser.add_argument("--evaluations", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--problem", default="dgemm-256")
    parser.add_argument("--stage", help="score every candidate in this stage (default: follow the ladder "
                                        "as the pipeline reports it, starting at o0)")
    parser.add_argument("--ladder", help="ladder JSON (default stages/default_ladder.json)")
    parser.add_argument("--np", type=int, default=2, help="file mode: benchmark ranks")
    parser.add_argument("--work-dir", help="file mode: where the candidate file and the run go")
    parser.add_argument("--bin", help="file mode: folder of the hpcreward executables (default $HPCREWARD_BIN)")
    parser.add_argument("--rendezvous", help="served pipeline: its run directory or coordinator.json "
                                             "(jobs/local.sh --serve --out DIR); needs train_bridge/python on the path")
    parser.add_argument("--url", help="served pipeline: its URL (with --token-file)")
    parser.add_argument("--token-file", help="served pipeline: the bearer token file (with --url)")
    parser.add_argument("--out", help="JSON report")
    args = parser.parse_args(argv)

    stages, _ = kernels.load_ladder(args.ladder)
    if args.stage and args.stage not in stages:
        parser.error(f"unknown stage {args.stage!r} (known: {', '.join(stages)})")
    if args.rendezvous or args.url:
        try:
            from hpcreward.client import Client  # train_bridge/python
        except ImportError:
            parser.error("a served pipeline needs the hpcreward package: PYTHONPATH=train_bridge/python:...")
        from .served_scorer import ServedScorer
        run_dir = None
        if args.rendezvous:
            client = Client.from_rendezvous(args.rendezvous, wait_s=300)
            run_dir = pathlib.Path(args.rendezvous)
            run_dir = run_dir if run_dir.is_dir() else run_dir.parent
        else:
            if not args.token_file:
                parser.error("--url needs --token-file")
            client = Client.from_token_file(args.url, args.token_file)
        scorer = ServedScorer(client, stage=args.stage, run_dir=run_dir)
    else:
        from .file_scorer import FileScorer
        scorer = FileScorer(work_dir=args.work_dir, np=args.np, stage=args.stage, ladder=args.ladder,
                            seed=args.seed, bin_dir=args.bin)

    started = time.monotonic()
    loop = MapElites(scorer, seed=args.seed, batch_size=args.batch_size, problem=args.problem,
                     stage=args.stage or "o0", stages=stages,
                     log=lambda line: print(f"[{time.monotonic() - started:7.1f} s] {line}", flush=True))
    report = loop.run(args.evaluations)
    report["seconds"] = time.monotonic() - started
    peak = getattr(scorer, "blas_peak_gflops_f64", None)
    if peak:
        report["blas_peak_gflops_f64"] = peak
        report["hosts"] = scorer.hosts
        if report["best"]:
            report["best_fraction_of_blas"] = report["best"]["gflops"] / peak
    if getattr(scorer, "work_dir", None):
        report["work_dir"] = str(scorer.work_dir)
    if report["best"]:
        best = report["best"]
        print(f"best: {best['gflops']:.2f} GFLOPS ({best['label']}, stage {best['stage']}, "
              f"evaluation {best['evaluation']})" + (f", {best['gflops'] / peak:.0%} of OpenBLAS {peak:.1f}" if peak else ""))
    if args.out:
        with open(args.out, "w") as out:
            json.dump(report, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
