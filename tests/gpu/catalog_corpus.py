#!/usr/bin/env python3
"""A built-in problem catalog through the whole pipeline, on a machine with a GPU.

For every CUDA problem of the named catalogs it renders generator kernels of its precision
(train_bridge/generator: a plain one for `cuda-naive`, a shared-memory one for `cuda-smem`, a
tensor-core one for `cuda-tensor`, each correct for any m, n, k, for the problem's layout and
batch), scores them all in one run of
`jobs/local.sh --problems CATALOG --np 0 --gpus 1`, and checks that every row is `ok`. Prints
each problem's shape, its yardsticks (cuBLAS, cuBLASLt: the rows' columns) and the GFLOPS of
each kernel with its reward in the run's reward mode (default fraction); DIR/catalog-report.json
keeps them.

  python3 tests/gpu/catalog_corpus.py --out DIR kernelbench-level1 llm-layers
  python3 tests/gpu/catalog_corpus.py --out DIR --only 'kb1-(3|1[678])-' --cases 'tests/gpu/cases/batched_*.cu' gemm-kinds

--only keeps the problems whose id matches a regular expression; --cases adds hand-written
cases (tests/gpu/cases) whose first line names a problem of the catalog and the status expected
("// expect: STATUS   problem: ID   stage: NAME").

Exit 0 when every row has its expected status (generator kernels: `ok`).
"""
import argparse
import json
import pathlib
import glob
import random
import re
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "train_bridge" / "generator"))
sys.path.insert(0, str(REPO / "tests" / "gpu"))
from hpcreward_generator import cuda_kernels  # noqa: E402
from hpcreward_generator.problem_kind import Kind  # noqa: E402
from gpu_corpus import read_rows  # noqa: E402

STAGES = ("cuda-naive", "cuda-smem", "cuda-tensor")


def catalog_problems(name, build):
    listing = subprocess.run([str(build / "bin" / "hpcreward-problems"), "--problems", name, "--json"],
                             check=True, capture_output=True, text=True).stdout
    return [p for p in json.loads(listing)["problems"] if p["language"] == "cuda"]


def candidate_lines(problems, seed):
    rng = random.Random(seed)
    lines = []
    for problem in problems:
        kind = Kind.of(problem)
        for stage in STAGES:
            genome = cuda_kernels.random_genome(rng, problem["precision"], stage)
            while not cuda_kernels.is_valid(genome, problem["precision"], stage, kind=kind):
                genome = cuda_kernels.random_genome(rng, problem["precision"], stage)
            lines.append({"id": f"{problem['id']}@{stage}", "problem": problem["id"], "stage": stage,
                          "batch_id": "catalog",
                          "source": cuda_kernels.render_cuda(genome, problem["precision"], kind)})
    return lines


def case_lines(pattern, problems):
    """(lines, expected status by id) of the hand-written cases matching `pattern` whose problem
    is in `problems`."""
    known = {problem["id"] for problem in problems}
    lines, expected = [], {}
    for path in sorted(glob.glob(pattern)):
        source = pathlib.Path(path).read_text()
        header = dict(re.findall(r"(expect|problem|stage): (\S+)", source.splitlines()[0]))
        if header.get("problem") not in known:
            continue
        case_id = f"case:{pathlib.Path(path).stem}"
        lines.append({"id": case_id, "problem": header["problem"], "stage": header["stage"],
                      "batch_id": "catalog", "source": source})
        expected[case_id] = header["expect"]
    return lines, expected


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--build", type=pathlib.Path, default=REPO / "build-gpu")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", help="only the problems whose id matches this regular expression")
    parser.add_argument("--cases", help="hand-written cases to add (a glob of tests/gpu/cases/*.cu)")
    parser.add_argument("--reward-mode", default="fraction",
                        help="the run's reward mode (default fraction: the rows' rewards are their share of the "
                             "best yardstick)")
    parser.add_argument("catalogs", nargs="+")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    report, failures = {}, 0
    for catalog in args.catalogs:
        problems = [p for p in catalog_problems(catalog, args.build)
                    if not args.only or re.search(args.only, p["id"])]
        cases, expected = case_lines(args.cases, problems) if args.cases else ([], {})
        candidates = args.out / f"{catalog}.jsonl"
        candidates.write_text("".join(json.dumps(line) + "\n" for line in candidate_lines(problems, args.seed) + cases))
        run = args.out / catalog
        command = [str(REPO / "jobs" / "local.sh"), "--np", "0", "--gpus", "1", "--problems", catalog,
                   "--reward-mode", args.reward_mode, "--candidates", str(candidates), "--out", str(run)]
        start = time.monotonic()
        with open(args.out / f"{catalog}.console.log", "w") as console:
            rc = subprocess.run(command, stdout=console, stderr=subprocess.STDOUT, timeout=1500).returncode
        wall = time.monotonic() - start
        rows = read_rows(run / "rewards.h5") if (run / "rewards.h5").exists() else []
        by_id = {row["candidate_id"]: row for row in rows}
        print(f"{catalog}: local.sh exit {rc}, {len(rows)} rows, {wall:.0f} s")
        report[catalog] = []
        for problem in problems:
            shape = problem["nominal"]
            cells = []
            measured = [row for row in rows if row["problem"] == problem["id"]]
            yardsticks = {name: max((row[f"{name}_gflops"] for row in measured), default=0)
                          for name in ("cublas", "cublaslt")}
            for stage in STAGES:
                row = by_id.get(f"{problem['id']}@{stage}")
                status = row["status"] if row else "missing"
                failures += status != "ok"
                cells.append(f"{stage} {status} {row['gflops']:.0f} ({row['reward']:.2f})" if row and status == "ok"
                             else f"{stage} {status}: {row['reason'][:160] if row else ''}")
                report[catalog].append({"problem": problem["id"], "shape": shape, "layout": problem["layout"],
                                        "stage": stage, "status": status,
                                        "gflops": row["gflops"] if row else None,
                                        "reward": row["reward"] if row else None, **yardsticks})
            print(f"  {problem['id']:26} {shape:>20} {problem['layout']:>10}  cuBLAS {yardsticks['cublas']:.0f}, "
                  f"cuBLASLt {yardsticks['cublaslt']:.0f}  " + " | ".join(cells))
        for case_id, status in expected.items():
            row = by_id.get(case_id)
            got = row["status"] if row else "missing"
            failures += got != status
            print(f"  {case_id:40} expected {status}, got {got}: {row['reason'][:200] if row else ''}")
            report[catalog].append({"case": case_id, "expected": status, "status": got,
                                    "reason": row["reason"] if row else None})
    (args.out / "catalog-report.json").write_text(json.dumps(report, indent=1))
    print("all ok" if failures == 0 else f"{failures} rows not ok")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
