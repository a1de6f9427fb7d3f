"""python3 -m hpcreward_generator --evaluations 300 --batch-size 16 --seed 1 --out report.json

One search (--problem: C for dgemm-*/sgemm-*, CUDA for cuda-*), or a C search and a CUDA search
side by side (--cuda-problem). On a served pipeline each search sends batches of its own and
keeps up to --in-flight of them out; in file mode (each batch a jobs/local.sh run) the searches
share one batch a round. With --resume each search goes on from its report until it has the
evaluations asked for in all.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

from .baseline import add_baseline
from .family import family_for
from .in_flight import DEFAULT_IN_FLIGHT, run_searches_in_flight
from .map_elites import MapElites, run_searches
from .report_lock import hold_report


def default_cuda_out(out: str | None) -> str | None:
    """report.json -> report-cuda.json (the CUDA search's report beside the C search's)."""
    if not out:
        return None
    path = pathlib.Path(out)
    return str(path.with_name(f"{path.stem}-cuda{path.suffix or '.json'}"))


def go_on_from_report(search: MapElites, out: str, log) -> None:
    """--resume: `search` goes on from its report `out`. Without one (the run stopped before the
    search's first batch came back) it stays a new search. Raises ValueError saying what to fix."""
    path = pathlib.Path(out)
    if not path.exists():
        log(f"{search.problem}: no report {out} (stopped before its first batch came back): a new search")
        return
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read {out} as a report ({error}): repair it, or move it away to start "
                         "a new search") from error
    try:
        search.restore(report)
    except ValueError as error:
        raise ValueError(f"{out}: {error} (or move it away to start a new search)") from error
    best = f"{search.best['gflops']:.2f} GFLOPS" if search.best else "none verified"
    log(f"{search.problem}: goes on from {out}: {search.evaluations} evaluations, {search.batches} batches, "
        f"{len(search.archive)} niches, best {best}")


def resumed(searches: list[tuple[MapElites, int, str]], log) -> list[tuple[MapElites, int, str]]:
    """--resume: each (search, evaluations in all, report file) goes on from its report; those
    that already have their evaluations are left out (their reports stay as they are)."""
    for search, _, out in searches:
        go_on_from_report(search, out, log)
    for search, evaluations, out in searches:
        if search.evaluations >= evaluations:
            log(f"{search.problem}: {out} holds {search.evaluations} evaluations, of {evaluations} asked for: "
                "nothing to do")
    return [(search, evaluations, out) for search, evaluations, out in searches if search.evaluations < evaluations]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="hpcreward_generator",
                                     description="MAP-Elites over parametric C or CUDA matmul candidates, "
                                                 "scored by the hpcreward pipeline")
    parser.add_argument("--evaluations", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the RNG and of the candidate ids ([cuda-]s<seed>-b<batch>-<i>)")
    parser.add_argument("--resume", action="store_true",
                        help="each search goes on from its report (--out, --cuda-out) when there is one, until "
                             "--evaluations (--cuda-evaluations) in all; give a --seed no earlier run used")
    parser.add_argument("--problem", default="dgemm-256",
                        help="the search's problem (default dgemm-256); cuda-dgemm-N, cuda-sgemm-N, cuda-hgemm-N "
                             "search the CUDA family; with --problems-json, any problem of that catalog")
    parser.add_argument("--problems-json",
                        help="the run's problem catalog as `hpcreward-problems --problems NAME --json` lists it: "
                             "each search's problem is found there (language, precision, layout, batch); without "
                             "it, problems of the default catalog by name")
    parser.add_argument("--stage", help="score every candidate in this stage (default: follow the ladder "
                                        "as the pipeline reports it, from its first stage: o0, cuda-naive)")
    parser.add_argument("--out", help="JSON report")
    parser.add_argument("--cuda-problem", help="a CUDA search beside the C search of --problem (its candidates "
                                               "go to GPU ranks), e.g. cuda-sgemm-4096")
    parser.add_argument("--cuda-evaluations", type=int, help="the CUDA search's evaluations (default --evaluations)")
    parser.add_argument("--cuda-stage", help="the CUDA search's --stage")
    parser.add_argument("--cuda-out", help="the CUDA search's report (default: --out's name with -cuda)")
    parser.add_argument("--ladder", help="ladder JSON (default stages/default_ladder.json)")
    parser.add_argument("--np", type=int, help="file mode: CPU benchmark ranks (default 2 with a C search, else 0)")
    parser.add_argument("--gpus", type=int, help="file mode: GPU benchmark ranks (default 1 with a CUDA search, else 0)")
    parser.add_argument("--work-dir", help="file mode: where the candidate file and the run go")
    parser.add_argument("--bin", help="file mode: folder of the hpcreward executables (default $HPCREWARD_BIN)")
    parser.add_argument("--rendezvous", help="served pipeline: its run directory or coordinator.json "
                                             "(jobs/local.sh --serve --out DIR); needs train_bridge/python on the path")
    parser.add_argument("--url", help="served pipeline: its URL (with --token-file)")
    parser.add_argument("--token-file", help="served pipeline: the bearer token file (with --url)")
    parser.add_argument("--in-flight", type=int, metavar="K",
                        help=f"served pipeline: batches each search keeps in flight, its own, made as one comes "
                             f"back (default {DEFAULT_IN_FLIGHT}; 1: one at a time). File mode scores one batch "
                             "at a time, the searches' candidates together")
    args = parser.parse_args(argv)

    catalog = None
    if args.problems_json:
        try:
            catalog = json.loads(pathlib.Path(args.problems_json).read_text())["problems"]
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--problems-json {args.problems_json}: not a catalog listing of hpcreward-problems "
                         f"--json ({error})")
    # (problem, evaluations, stage, report file) of each search.
    wanted = [(args.problem, args.evaluations, args.stage, args.out)]
    if args.cuda_problem:
        wanted.append((args.cuda_problem, args.cuda_evaluations or args.evaluations, args.cuda_stage,
                       args.cuda_out or default_cuda_out(args.out)))
    families = []
    for problem, evaluations, stage, _ in wanted:
        try:
            family = family_for(problem, args.ladder, catalog)
        except ValueError as error:
            parser.error(str(error))
        if stage and stage not in family.stages:
            parser.error(f"unknown stage {stage!r} for {problem} (known: {', '.join(family.stages)})")
        if evaluations < 1:
            parser.error(f"{problem}: evaluations must be positive")
        families.append(family)
    if args.cuda_problem and [family.language for family in families] != ["c", "cuda"]:
        parser.error("--cuda-problem adds a CUDA search beside the C search of --problem (a C problem)")
    languages = {family.language for family in families}
    if args.resume and not args.out:
        parser.error("--resume goes on from each search's report: give --out")
    served = bool(args.rendezvous or args.url)
    if args.in_flight is not None and args.in_flight < 1:
        parser.error(f"--in-flight must be 1 or more, not {args.in_flight}")
    if not served and (args.in_flight or 1) > 1:
        parser.error("--in-flight is for a served pipeline (--rendezvous, --url): in file mode each batch is a "
                     "whole jobs/local.sh run, scored one at a time")
    in_flight = args.in_flight or DEFAULT_IN_FLIGHT

    reports = [os.path.realpath(out) for *_, out in wanted if out]
    if len(set(reports)) < len(reports):
        parser.error("--out and --cuda-out name one report: each search needs a report of its own")
    # Before reading a report to resume from: the report is this process's until it ends.
    try:
        report_locks = [hold_report(out) for *_, out in wanted if out]  # noqa: F841 (held open)
    except ValueError as error:
        print(f"hpcreward_generator: error: {error}", file=sys.stderr)
        return 2

    started = time.monotonic()
    log = lambda line: print(f"[{time.monotonic() - started:7.1f} s] {line}", flush=True)  # noqa: E731
    # (search, evaluations in all, report file), before the scorer: a report that cannot be
    # gone on from stops the run before it waits for a pipeline.
    searches = [(MapElites(None, seed=args.seed, batch_size=args.batch_size, problem=problem, stage=stage,
                           pin=bool(stage), family=family, log=log), evaluations, out)
                for (problem, evaluations, stage, out), family in zip(wanted, families)]
    if args.resume:
        try:
            searches = resumed(searches, log)
        except ValueError as error:
            print(f"hpcreward_generator: error: --resume: {error}", file=sys.stderr)
            return 2

    if served:
        try:
            from hpcreward.client import Client  # train_bridge/python
        except ImportError:
            parser.error("a served pipeline needs the hpcreward package: PYTHONPATH=train_bridge/python:...")
        from .served_scorer import ServedScorer
        run_dir = None
        if args.rendezvous:
            new_client = lambda: Client.from_rendezvous(args.rendezvous, wait_s=300)  # noqa: E731
            run_dir = pathlib.Path(args.rendezvous)
            run_dir = run_dir if run_dir.is_dir() else run_dir.parent
        else:
            if not args.token_file:
                parser.error("--url needs --token-file")
            new_client = lambda: Client.from_token_file(args.url, args.token_file)  # noqa: E731
        # One client per scoring thread (batches in flight): see served_scorer.py.
        scorer = ServedScorer(new_client(), run_dir=run_dir, new_client=new_client)
    else:
        from .file_scorer import FileScorer
        np = args.np if args.np is not None else (2 if "c" in languages else 0)
        gpus = args.gpus if args.gpus is not None else (1 if "cuda" in languages else 0)
        scorer = FileScorer(work_dir=args.work_dir, np=np, gpus=gpus, ladder=args.ladder, seed=args.seed,
                            bin_dir=args.bin)

    for search, _, _ in searches:
        search.score = scorer
    current = scorer.refresh_stages() if hasattr(scorer, "refresh_stages") else {}
    for search, _, _ in searches:
        if not search.pin and current.get(search.problem) in search.family.stages:
            search.stage = current[search.problem]
            log(f"{search.problem}: the pipeline's ladder stands at {search.stage}: the search "
                f"{'goes on' if search.evaluations else 'starts'} there")

    reports_of = {id(search): out for search, _, out in searches}

    def write_report(search: MapElites) -> dict:
        """Called from one thread at a time (run_searches_in_flight's lock, or the one thread)."""
        report = add_baseline(search.report(), scorer.hosts, search.family.precision)
        report["seconds"] = time.monotonic() - started
        if getattr(scorer, "work_dir", None):
            report["work_dir"] = str(scorer.work_dir)
        out = reports_of[id(search)]
        if out:  # replaced whole, so a reader never sees half a report
            partial = pathlib.Path(f"{out}.partial")
            partial.write_text(json.dumps(report, indent=1))
            partial.replace(out)
        return report

    def write_reports() -> list[dict]:
        return [write_report(search) for search, _, _ in searches]

    wanted_evaluations = [(search, evaluations) for search, evaluations, _ in searches]
    if served:
        log(f"each search keeps up to {in_flight} batch{'es' if in_flight > 1 else ''} of its own in flight")
        run_searches_in_flight(wanted_evaluations, scorer, in_flight, after_batch=write_report)
    else:  # one local.sh run a round, the searches' candidates together
        run_searches(wanted_evaluations, scorer, after_round=write_reports)

    for (search, _, _), report in zip(searches, write_reports()):
        best = report["best"]
        if best:
            fraction = report.get("best_fraction_of_blas")
            print(f"{search.problem}: best {best['gflops']:.2f} GFLOPS ({best['label']}, stage {best['stage']}, "
                  f"evaluation {best['evaluation']})"
                  + (f", {fraction:.0%} of {report['blas']}'s ceiling on its ranks" if fraction is not None else "")
                  + (f" ({report['best_fraction_of_cublas_sgemm_fp32']:.0%} of its SGEMM without tensor cores)"
                     if "best_fraction_of_cublas_sgemm_fp32" in report else ""))
        else:
            print(f"{search.problem}: no candidate verified in {search.evaluations} evaluations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
